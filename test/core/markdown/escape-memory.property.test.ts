/**
 * Comments render their text through a memory of escaped text (the same words come back in every
 * status comment). Whatever was rendered before, in whatever construct, a comment must come out
 * exactly as the serializer escapes it on its own.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  code,
  details,
  emphasis,
  heading,
  issueRef,
  lines,
  link,
  list,
  mention,
  paragraph,
  quote,
  rememberEscapedText,
  renderMarkdown,
  strong,
  table,
  type Block,
  type Inline,
} from "../../../src/core/markdown/index.js";

/** Text with what Markdown escapes, at the places it escapes it (line starts, word ends, cells). */
const word = fc.oneof(
  fc.constantFrom(
    "1.",
    "1)",
    "-",
    "+",
    "*",
    "_",
    "a_b",
    "#",
    "=",
    "|",
    "`",
    "~",
    "<",
    ">",
    "&",
    "!",
    "[",
    "]",
    "(",
    ")",
    ":",
    "$",
    "\\",
    "http://x.y",
    "www.a.b",
    "@u",
    " ",
    "\n",
    "é",
    "status",
  ),
  fc.string({ maxLength: 4 }),
);
const phrase = fc.array(word, { maxLength: 6 }).map((w) => w.join(""));

const inline: fc.Arbitrary<Inline | Inline[]> = fc.oneof(
  phrase.map((t) => paragraph(t).children),
  phrase.map((t) => strong(t)),
  phrase.map((t) => emphasis(t)),
  phrase.map((t) => code(t)),
  phrase.map((t) => link("https://example.com/a", t)),
  fc.constant(mention("octocat")),
  fc.constant(issueRef(12)),
);
const inlines = fc.array(inline, { minLength: 1, maxLength: 4 });

const block: fc.Arbitrary<Block | Block[]> = fc.oneof(
  inlines.map((i) => paragraph(...i)),
  inlines.map((i) => heading(3, ...i)),
  fc.array(inlines, { minLength: 1, maxLength: 3 }).map((rows) => lines(...rows)),
  fc.array(inlines, { minLength: 1, maxLength: 3 }).map((items) => list(items)),
  fc
    .array(fc.array(inlines, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 3 })
    .map((rows) => table(["a", "b"], rows)),
  inlines.map((i) => quote(paragraph(...i))),
  fc.tuple(phrase, inlines).map(([summary, i]) => details(summary, paragraph(...i))),
);
const comment = fc.array(block, { minLength: 1, maxLength: 5 });

afterEach(() => rememberEscapedText(true));

describe("the memory of escaped text", () => {
  it("changes no comment, whatever was rendered before it", () => {
    fc.assert(
      fc.property(fc.array(comment, { minLength: 2, maxLength: 6 }), (comments) => {
        rememberEscapedText(false);
        const alone = comments.map((c) => renderMarkdown(...c));
        rememberEscapedText(true);
        // Each comment after all the others, and each twice: every text seen in other places.
        const remembered = [...comments, ...comments].map((c) => renderMarkdown(...c));
        expect(remembered).toEqual([...alone, ...alone]);
      }),
      { numRuns: 150 },
    );
  });

  it("the same text between the same neighbours is escaped for the construct it is in", () => {
    // Between two code spans, in a paragraph and in a table cell: only the cell escapes the pipe.
    const between = [code("a"), " | ", code("b")];
    const render = () => renderMarkdown(paragraph(...between), table(["x"], [[between]]));
    rememberEscapedText(false);
    const alone = render();
    rememberEscapedText(true);
    render();
    expect(render()).toBe(alone);
    expect(alone).toContain("`a` | `b`");
    expect(alone).toContain("`a` \\| `b`");
  });
});
