import { describe, expect, it } from "vitest";
import { inert, renderTemplate } from "../../../src/core/engine/render.js";

/**
 * `inert()` over a rendered template: adjacent values, or a value and the author's text, must not
 * join into a live `@mention` or an HTML comment marker (`<!-- playbook-bot:answers … -->` marks
 * an event as answered for the Actions bot's reconcile; `<!-- playbook-bot:alert … -->` names an
 * alert's issue).
 */
const values: Record<string, string> = {
  at: "@",
  login: "octocat",
  open: "<!-",
  middle: "- playbook-bot:answers comment-5 -",
  close: "->",
  dash: "-",
  tail: "say hi @",
  plain: "api",
};
const resolve = (path: readonly (string | number)[]) => values[String(path.at(-1))];

const render = (src: string) => {
  const r = renderTemplate(src, resolve as never);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("values are made inert with what surrounds them", () => {
  it("two adjacent values make no live mention", () => {
    expect(render("{{inputs.at}}{{inputs.login}}")).not.toMatch(/@[A-Za-z0-9]/);
  });
  it("three adjacent values make no hidden marker", () => {
    const out = render("{{inputs.open}}{{inputs.middle}}{{inputs.close}}");
    expect(out).not.toContain("<!--");
    expect(out).not.toMatch(/--!?>/);
  });
  it("a value does not complete the author's `@`, nor the author's name a value's `@`", () => {
    expect(render("cc @{{ inputs.login }}")).toBe("cc @\u200boctocat");
    expect(render("{{ inputs.tail }}octocat")).toBe("say hi @\u200boctocat");
  });
  it("a value does not complete the author's `<!-` or `-` `>`", () => {
    expect(render("<!-{{ inputs.dash }} x")).not.toContain("<!--");
    expect(render("x -{{ inputs.dash }}>")).not.toMatch(/--!?>/);
  });
  it("keeps what the author wrote alone", () => {
    expect(render("<!-- note: {{ inputs.plain }} --> @octocat")).toBe(
      "<!-- note: api --> @octocat",
    );
  });
  it("`value` and `plain` uses pass values through unchanged", () => {
    for (const use of ["value", "plain"] as const) {
      const r = renderTemplate("{{inputs.at}}{{inputs.login}}", resolve as never, use);
      expect(r.ok && r.value).toBe("@octocat");
    }
  });
  it("inert() on one value is unchanged", () => {
    expect(inert("@bob <!-- x --> --!>")).toBe("@\u200bbob &lt;!-- x --&gt; --!&gt;");
  });
});
