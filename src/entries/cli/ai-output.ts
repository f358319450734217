import type { AiMessage } from "../../runtime/ai.js";
import { inertLines, plainLine } from "../../core/util/log-line.js";

/** What starts each line of an answer on the console: no line of it reads as the run's own. */
export const ANSWER_PREFIX = "  │ ";

/**
 * Prints an `ai` step's answer as the model writes it. Every line is indented behind a bar, so
 * nothing the model says can pass for the run's own lines or start a workflow command (`::x::` at
 * the start of a line, `##[x]` anywhere) when the CLI runs in GitHub Actions; control characters
 * other than line breaks and tabs are shown as escapes, so no terminal sequence reaches the
 * terminal. Findings and tool calls are logged on lines of their own.
 */
export function aiConsole(
  out: (text: string) => void,
  log: (line: string) => void,
): (step: string, message: AiMessage) => void {
  let current: string | undefined;
  let atLineStart = true;
  /** `#` or `##` at the end of a delta, held until the next shows whether `[` follows. */
  let carry = "";

  const endText = () => {
    if (carry) write("", true);
    if (!atLineStart) out("\n");
    atLineStart = true;
  };

  function write(text: string, final = false): void {
    let t = carry + text;
    carry = "";
    if (!final) {
      const held = /#{1,2}$/.exec(t);
      if (held) {
        carry = held[0];
        t = t.slice(0, -carry.length);
      }
    }
    t = inertLines(t.replace(/\r\n?/g, "\n"));
    let buf = "";
    t.split("\n").forEach((part, i) => {
      if (i > 0) {
        buf += "\n";
        atLineStart = true;
      }
      if (part === "") return;
      if (atLineStart) buf += ANSWER_PREFIX;
      buf += part;
      atLineStart = false;
    });
    if (buf) out(buf);
  }

  return (step, m) => {
    if (current !== step) {
      if (current !== undefined) endText();
      current = step;
      log(`ai ${step}: answering`);
    }
    if (m.type === "text" && m.text) write(m.text);
    else if (m.type === "finding" && m.finding) {
      endText();
      log(`ai ${step}: finding ${m.finding.key} = ${plainLine(String(m.finding.value))}`);
    } else if (m.type === "tool_call" && m.tool) {
      endText();
      log(`ai ${step}: the model asked to call ${plainLine(m.tool)}`);
    } else if (m.type === "tool_result" && m.tool) {
      endText();
      const said = plainLine(m.text ?? "");
      log(`ai ${step}: ${plainLine(m.tool)} ${m.ok ? "answered" : "failed"}: ${said}`);
    } else if (m.type === "done") {
      endText();
      current = undefined;
    }
  };
}
