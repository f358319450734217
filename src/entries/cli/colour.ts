import { styleText } from "node:util";
import type { TextStyle } from "../../core/format/report/text.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether to colour what goes to one stream. `--color`/`--no-color` decide first; then
 * `FORCE_COLOR` (set and not empty: on, unless `0` or `false`), as Node and chalk read it; then
 * `NO_COLOR` (set and not empty: off, as no-color.org says); else colour only a terminal that is
 * not `TERM=dumb`. Node 20's own check takes an empty `NO_COLOR` for off, so the CLI decides here.
 */
export function colourWanted(terminal: boolean, env: Env, flag?: boolean): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return terminal && env.TERM !== "dumb";
}

/** The styles the CLI prints with: each the identity when colour is off. */
export interface Colours {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

const same = (text: string): string => text;

/** Styles for a stream; `validateStream: false` because whether to colour is decided above. */
export function colours(on: boolean): Colours {
  const paint =
    (format: Parameters<typeof styleText>[0]) =>
    (text: string): string =>
      text === "" ? text : styleText(format, text, { validateStream: false });
  return on
    ? {
        bold: paint("bold"),
        dim: paint("dim"),
        red: paint("red"),
        yellow: paint("yellow"),
        green: paint("green"),
        cyan: paint("cyan"),
      }
    : { bold: same, dim: same, red: same, yellow: same, green: same, cyan: same };
}

/** How the text report looks in colour: positions bold, errors red, warnings yellow. */
export function reportStyle(c: Colours): TextStyle {
  return {
    location: c.bold,
    error: (t) => c.bold(c.red(t)),
    warning: (t) => c.bold(c.yellow(t)),
    rule: c.dim,
    hint: c.cyan,
    ok: c.green,
  };
}
