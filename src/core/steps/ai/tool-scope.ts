/**
 * Which tools an `ai` step may offer the model under its scope. A read-only step may offer only
 * tools that read. What a tool does is known for certain only where it is configured (its
 * descriptor says `readOnly`); some names say it on their own, and those are refused where they
 * are written: a shell (`shell/bash`, `*\/exec`), and a tool whose name starts with a verb that
 * changes something (`fs/write_file`, `git/push`, `github/create_issue`).
 */

/** Servers whose every tool runs commands. */
const SHELL_SERVERS = new Set(["shell", "bash", "sh", "zsh", "powershell", "pwsh", "terminal"]);

/** Tool names that run commands, on any server. */
const SHELL_TOOLS = new Set([
  "bash",
  "sh",
  "zsh",
  "shell",
  "exec",
  "execute",
  "run_command",
  "execute_command",
  "run_shell",
  "run_terminal_cmd",
  "powershell",
  "pwsh",
]);

/** First words of tool names that change something. */
const WRITE_VERBS = new Set([
  "add",
  "append",
  "apply",
  "archive",
  "assign",
  "close",
  "comment",
  "commit",
  "create",
  "delete",
  "deploy",
  "destroy",
  "drop",
  "edit",
  "exec",
  "execute",
  "insert",
  "install",
  "kill",
  "label",
  "merge",
  "mkdir",
  "modify",
  "move",
  "patch",
  "post",
  "publish",
  "push",
  "put",
  "rebase",
  "remove",
  "rename",
  "reopen",
  "replace",
  "reset",
  "restart",
  "revert",
  "rm",
  "scale",
  "send",
  "set",
  "tag",
  "truncate",
  "uninstall",
  "update",
  "upload",
  "upsert",
  "write",
]);

/** Why a tool runs commands (a shell server, or a tool named like one), or undefined. */
function shellByName(name: string): string | undefined {
  const slash = name.indexOf("/");
  const server = (slash < 0 ? "" : name.slice(0, slash)).toLowerCase();
  const tool = (slash < 0 ? name : name.slice(slash + 1)).toLowerCase();
  if (SHELL_SERVERS.has(server)) return `${server} runs commands`;
  if (SHELL_TOOLS.has(tool)) return `${tool} runs commands`;
  return undefined;
}

/**
 * Why a tool's name alone says it may change something (a shell, or a write verb), or undefined
 * when the name says nothing either way.
 */
export function writeByName(name: string): string | undefined {
  const shell = shellByName(name);
  if (shell !== undefined) return shell;
  const slash = name.indexOf("/");
  // camelCase and snake_case alike: the first word of `writeFile`, `write_file`, `write-file`.
  const first = (slash < 0 ? name : name.slice(slash + 1))
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_.-]/)[0];
  if (first !== undefined && WRITE_VERBS.has(first)) return `'${first}' changes something`;
  return undefined;
}

/** What a host knows of a configured tool: whether it only reads. */
export interface ToolAccess {
  readOnly: boolean;
}

/**
 * Why a tool may not be offered to a step of this scope, or undefined when it may: a write step
 * may offer any tool; a read-only one refuses a shell whatever its descriptor says, a tool whose
 * descriptor is not read-only, and a tool whose name says it writes unless a descriptor says it
 * only reads.
 */
export function toolScopeRefusal(
  name: string,
  scope: "read-only" | "write",
  access: ToolAccess | undefined,
): string | undefined {
  if (scope === "write") return undefined;
  const shell = shellByName(name);
  if (shell !== undefined) return shell;
  if (access) return access.readOnly ? undefined : "it is not marked read-only here";
  return writeByName(name);
}
