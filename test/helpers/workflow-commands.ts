/**
 * The workflow commands a GitHub Actions runner reads from a step's output, parsed as the runner
 * does (actions/runner, ActionCommand.TryParseV2 and TryParse): the output is split into lines at
 * CR, LF or CRLF; a line whose text after leading whitespace starts with `::` is `::name
 * key=value,...::data`; and `##[name key=value;...]data` counts anywhere in a line. Every name is
 * kept here, registered or not, so a test sees each line the runner could act on.
 */
export interface ParsedCommand {
  form: "::" | "##[";
  name: string;
  properties: Record<string, string>;
  data: string;
  line: string;
}

const unescapeData = (s: string) =>
  s.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");

const unescapeProperty = (s: string) =>
  s
    .replace(/%0D/g, "\r")
    .replace(/%0A/g, "\n")
    .replace(/%3A/g, ":")
    .replace(/%2C/g, ",")
    .replace(/%25/g, "%");

export function workflowCommands(output: string): ParsedCommand[] {
  const commands: ParsedCommand[] = [];
  for (const line of output.split(/\r\n|\r|\n/)) {
    const text = line.trimStart();
    const end = text.startsWith("::") ? text.indexOf("::", 2) : -1;
    if (end >= 0) {
      const info = text.slice(2, end);
      const space = info.indexOf(" ");
      const properties: Record<string, string> = {};
      if (space > 0)
        for (const pair of info
          .slice(space + 1)
          .split(",")
          .filter(Boolean)) {
          const eq = pair.indexOf("=");
          if (eq > 0) properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
        }
      commands.push({
        form: "::",
        name: space < 0 ? info : info.slice(0, space),
        properties,
        data: unescapeData(text.slice(end + 2)),
        line,
      });
      continue;
    }
    const at = line.indexOf("##[");
    const close = at >= 0 ? line.indexOf("]", at) : -1;
    if (close >= 0) {
      const info = line.slice(at + 3, close);
      const space = info.indexOf(" ");
      commands.push({
        form: "##[",
        name: space < 0 ? info : info.slice(0, space),
        properties: {},
        data: line.slice(close + 1),
        line,
      });
    }
  }
  return commands;
}

/**
 * Values that a fork's playbook (or its file name) might carry to forge commands: a line break
 * followed by a command, the mask command, an escaped line break that must stay text, a carriage
 * return, and the older `##[...]` form.
 */
export const HOSTILE = {
  warning: "\n::warning file=x::pwned",
  mask: "::add-mask::secret",
  escaped: "%0A::error::forged",
  cr: "\r::add-mask::secret2",
  v1: "##[add-mask]secret3",
} as const;
