/**
 * Why a branch name is not a valid, safe git ref (the rules of `git check-ref-format --branch`,
 * plus a length cap), or undefined when it is fine. Used on literal names at validation time and
 * on rendered names (e.g. built from an issue title) at run time.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > 200) return "it is longer than 200 characters";
  if (name.startsWith("-")) return "it starts with '-'";
  if (name.startsWith("/") || name.endsWith("/")) return "it starts or ends with '/'";
  if (name.endsWith(".")) return "it ends with '.'";
  if (name.endsWith(".lock")) return "it ends with '.lock'";
  if (name === "@") return "it is '@'";
  // git refuses it as a branch name: `refs/heads/HEAD` makes every `HEAD` ambiguous.
  if (name === "HEAD") return "it is 'HEAD'";
  if (name.includes("..")) return "it contains '..'";
  if (name.includes("//")) return "it contains '//'";
  if (name.includes("@{")) return "it contains '@{'";
  // eslint-disable-next-line no-control-regex
  const bad = /[\x00-\x20\x7f~^:?*[\\]/.exec(name);
  if (bad) return `it contains ${JSON.stringify(bad[0])}`;
  if (name.split("/").some((part) => part.startsWith("."))) return "a part starts with '.'";
  return undefined;
}

/**
 * Why a repository path is unsafe to write, or undefined: it must be relative, normalised, stay
 * inside the repository and never touch .git.
 */
export function repoPathProblem(path: string): string | undefined {
  if (path.length === 0) return "it is empty";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.startsWith("\\"))
    return "it is absolute";
  if (path.includes("\\")) return "it uses '\\' (write paths with '/')";
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f]/.test(path)) return "it contains a control character";
  const parts = path.split("/");
  if (parts.some((p) => p === "..")) return "it leaves the repository with '..'";
  if (parts.some((p) => p === "." || p === ""))
    return "it is not normalised (remove './' and '//')";
  if (parts.some((p) => p.toLowerCase() === ".git")) return "it touches .git";
  return undefined;
}
