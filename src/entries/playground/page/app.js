// The playground page: plain DOM, no framework. Text from the server is set as text; only
// comments come as HTML, already sanitised by the server the way GitHub sanitises a thread.
// The editor is CodeMirror, bundled with the language server's completion and hover (editor.js).
import { createPlaybookEditor } from "./editor.js";

const $ = (selector) => document.querySelector(selector);

const state = {
  playbooks: [],
  /** The open file: { file, tier, source } */
  open: undefined,
  issue: undefined,
  runs: [],
  checking: 0,
  diagrams: 0,
};

function notice(text, bad = false) {
  const el = $("#notice");
  el.textContent = text;
  el.className = bad ? "bad" : "";
}

// The API serves only requests that carry this start's token, which the server wrote into the page.
const TOKEN = document.querySelector('meta[name="playground-token"]')?.content ?? "";

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: {
      "x-playground-token": TOKEN,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const value = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(value.error ?? `HTTP ${res.status}`);
  return value;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// ---- diagrams ----

let mermaidReady;
function mermaidLib() {
  mermaidReady ??= new Promise((resolve) => {
    const ready = () => {
      if (!window.mermaid) return resolve(undefined);
      window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
      resolve(window.mermaid);
    };
    if (document.readyState === "complete") ready();
    else window.addEventListener("load", ready);
  });
  return mermaidReady;
}

/**
 * Mermaid's SVG as nodes with nothing that runs: no script, no event handler, no `javascript:`
 * link, whatever a diagram's source (a comment's, a playbook's titles) held. Mermaid's strict
 * mode should already ensure it; DOMPurify makes sure, before anything reaches the document.
 * Without DOMPurify nothing is drawn (the source is shown as text).
 */
function sanitizeSvg(svg) {
  const purify = window.DOMPurify;
  if (!purify?.isSupported) return undefined;
  return purify.sanitize(svg, {
    USE_PROFILES: { svg: true, svgFilters: true, html: true },
    // Mermaid writes its labels as HTML inside <foreignObject>.
    ADD_TAGS: ["foreignObject"],
    HTML_INTEGRATION_POINTS: { foreignobject: true },
    FORBID_TAGS: ["script", "iframe", "object", "embed"],
    RETURN_DOM_FRAGMENT: true,
  });
}

async function drawInto(target, source) {
  const mermaid = await mermaidLib();
  if (!mermaid) {
    target.replaceChildren(el("pre", {}, source));
    return;
  }
  try {
    const { svg } = await mermaid.render(`diagram-${++state.diagrams}`, source);
    const safe = sanitizeSvg(svg);
    if (!safe) {
      target.replaceChildren(el("pre", {}, source));
      return;
    }
    target.replaceChildren(safe);
    target.dataset.drawn = "true";
  } catch (err) {
    target.replaceChildren(
      el("pre", { class: "bad" }, `The diagram could not be drawn: ${err.message ?? err}`),
    );
  }
}

// ---- playbooks and the editor ----

function renderPlaybooks() {
  const list = $("#playbooks");
  list.replaceChildren(
    ...state.playbooks.map((p) => {
      const status =
        p.errors > 0
          ? `${p.errors} error(s)`
          : p.warnings > 0
            ? `${p.warnings} warning(s)`
            : "valid";
      const item = el(
        "li",
        { class: state.open?.file === p.file ? "selected" : "", "data-file": p.file },
        el("button", { type: "button", onclick: () => openPlaybook(p) }, p.id ?? p.file),
        " ",
        el("span", { class: `tier ${p.tier}` }, p.tier),
        " ",
        el("span", { class: p.errors > 0 ? "bad" : "muted" }, status),
      );
      return item;
    }),
  );
}

/**
 * Opens a playbook in the editor. Chosen from the list (`show`), the editor is brought into view
 * where the panels stand one under another (a phone), instead of staying below the list.
 */
function openPlaybook(p, { show = true } = {}) {
  const editable = p.tier === "repository";
  // A bundled playbook is copied into the repository to be changed (a nearer one of its id wins).
  const file = editable ? p.file : p.file.replace(/^bundled\//, "").replace(/^.*\//, "");
  state.open = { file, tier: p.tier, source: p.source, ...(editable ? {} : { from: p.file }) };
  $("#file").textContent = editable
    ? `.github/playbooks/${file}`
    : `${p.file} (saving copies it to .github/playbooks/${file})`;
  editor.setText(p.source);
  renderPlaybooks();
  void check();
  if (show && stackedUnder($("#catalogue"), $("#workbench")))
    $("#workbench").scrollIntoView({ block: "start" });
}

/** Whether `lower` stands below `upper` rather than beside it. */
function stackedUnder(upper, lower) {
  return lower.getBoundingClientRect().top >= upper.getBoundingClientRect().bottom;
}

/** The editor's playbook as the API takes it. */
function edited() {
  const { file, from } = state.open;
  return { file, text: editor.text(), ...(from ? { from } : {}) };
}

let timer;
function scheduleCheck() {
  clearTimeout(timer);
  timer = setTimeout(() => void check(), 300);
}

function currentStepFor(text) {
  const id = /^id:\s*([A-Za-z0-9_-]+)/m.exec(text)?.[1];
  const run = state.runs.find((r) => r.playbook === id && r.status !== "completed");
  return run?.current;
}

/** A new playbook that validates with no finding: every step named, as people read it. */
function starterPlaybook(id) {
  return [
    "apiVersion: playbook-bot/v1",
    `id: ${id}`,
    `name: ${id}`,
    "on:",
    `  labels: [${id}]`,
    "steps:",
    "  - id: look",
    "    type: investigate",
    "    name: Find the cause",
    "    expected_findings: [cause]",
    "  - id: done",
    "    type: end",
    "    name: Done",
    "    status: success",
    "",
  ].join("\n");
}

async function check() {
  if (!state.open) return;
  const text = editor.text();
  const ticket = ++state.checking;
  const current = currentStepFor(text);
  try {
    const result = await call("POST", "/api/check", {
      ...edited(),
      ...(current ? { current } : {}),
    });
    if (ticket !== state.checking) return;
    // Underlined in place, with the rule and its fix (unless the text changed meanwhile).
    editor.showFindings(result.diagnostics, text);
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    const warnings = result.diagnostics.filter((d) => d.severity === "warning").length;
    $("#check-summary").textContent =
      errors + warnings === 0 ? "No problems." : `${errors} error(s), ${warnings} warning(s)`;
    $("#diagnostics").replaceChildren(
      ...result.diagnostics.map((d) =>
        el(
          "li",
          { class: d.severity, onclick: () => selectLine(d.line) },
          el("span", { class: "where" }, `${d.line}:${d.column}`),
          " ",
          el("span", { class: "severity" }, d.severity),
          " ",
          el("code", {}, d.rule),
          " ",
          d.message,
          d.hint ? el("div", { class: "hint" }, d.hint) : "",
        ),
      ),
    );
    $("#diagram-current").textContent = current ? `— a run here is at ${current}` : "";
    if (result.mermaid) await drawInto($("#diagram"), result.mermaid);
    else $("#diagram").replaceChildren(el("p", { class: "muted" }, "Fix the errors to draw it."));
  } catch (err) {
    notice(err.message, true);
  }
}

function selectLine(line) {
  editor.selectLine(line);
}

async function save() {
  if (!state.open) return notice("Open or create a playbook first.", true);
  try {
    const r = await call("PUT", "/api/playbooks", edited());
    state.open.tier = "repository";
    delete state.open.from;
    $("#file").textContent = `.github/playbooks/${r.file}`;
    notice(
      `Saved .github/playbooks/${r.file} on the sandbox's default branch: the app reads it from the next event.`,
    );
    await refresh();
  } catch (err) {
    notice(err.message, true);
  }
}

async function runCases() {
  if (!state.open) return;
  try {
    const r = await call("POST", "/api/test", edited());
    if (r.problem) {
      $("#cases").replaceChildren(el("li", { class: "bad" }, r.problem));
      return;
    }
    if (r.results.length === 0) {
      $("#cases").replaceChildren(
        el("li", { class: "muted" }, "This playbook has no golden cases (tests:)."),
      );
      return;
    }
    $("#cases").replaceChildren(
      ...r.results.map((c) =>
        el(
          "li",
          { class: c.ok ? "pass" : "fail" },
          `${c.ok ? "✔" : "✖"} ${c.name}`,
          ...(c.ok ? [] : [el("pre", {}, c.problems.join("\n"))]),
        ),
      ),
    );
  } catch (err) {
    notice(err.message, true);
  }
}

// ---- people, issues, the thread ----

function renderPeople(people, permissions) {
  const actor = $("#actor");
  const chosen = actor.value;
  actor.replaceChildren(
    ...people.map((p) => el("option", { value: p.login }, `${p.login} (${p.permission})`)),
  );
  actor.append(el("option", { value: "mallory" }, "mallory (no access)"));
  actor.value = chosen || people[0]?.login || "mallory";
  $("#people tbody").replaceChildren(
    ...people.map((p) => {
      const select = el(
        "select",
        {
          "aria-label": `role of ${p.login}`,
          onchange: async (e) => {
            try {
              await call("POST", "/api/people", { login: p.login, permission: e.target.value });
              await refresh();
            } catch (err) {
              notice(err.message, true);
            }
          },
        },
        ...[...permissions, "none"].map((r) => el("option", { value: r }, r)),
      );
      select.value = p.permission;
      return el("tr", {}, el("td", {}, p.login), el("td", {}, select));
    }),
  );
}

function renderIssues(issues) {
  const select = $("#issue-select");
  select.replaceChildren(
    el("option", { value: "" }, issues.length ? "— choose —" : "no issue yet"),
    ...issues.map((i) => el("option", { value: String(i.number) }, `#${i.number} ${i.title}`)),
  );
  if (state.issue) select.value = String(state.issue);
}

function renderPulls(pulls) {
  $("#pulls").replaceChildren(
    ...pulls.map((p) =>
      el(
        "li",
        { "data-pull": String(p.number) },
        `#${p.number} ${p.title} (${p.head}) — ${p.merged ? "merged" : p.state} `,
        ...(p.state === "open"
          ? [
              el(
                "button",
                { type: "button", onclick: () => closePull(p.number, "merge") },
                "Merge",
              ),
              " ",
              el(
                "button",
                { type: "button", onclick: () => closePull(p.number, "close") },
                "Close",
              ),
            ]
          : []),
      ),
    ),
  );
}

async function closePull(number, how) {
  try {
    await call("POST", `/api/pulls/${number}/${how}`, { author: $("#actor").value });
    await refresh();
  } catch (err) {
    notice(err.message, true);
  }
}

const REACTIONS = { eyes: "👀", rocket: "🚀", "-1": "👎", "+1": "👍" };

/** The open <details> of each comment in the thread: its id, and which of its blocks. */
function openDetails() {
  const opened = new Map();
  for (const li of document.querySelectorAll("#thread li[data-comment]")) {
    const indexes = [...li.querySelectorAll("details")].flatMap((d, i) => (d.open ? [i] : []));
    if (indexes.length > 0) opened.set(li.dataset.comment, indexes);
  }
  return opened;
}

async function renderThread() {
  if (!state.issue) {
    state.shown = undefined;
    $("#issue-head").replaceChildren();
    $("#thread").replaceChildren();
    state.runs = [];
    return;
  }
  const issue = await call("GET", `/api/issues/${state.issue}`);
  state.runs = issue.runs;
  // Polling redraws nothing that did not change (diagrams are slow to draw).
  const seen = JSON.stringify(issue);
  if (seen === state.shown) return;
  state.shown = seen;
  $("#issue-head").replaceChildren(
    el("h3", {}, `#${issue.number} ${issue.title}`),
    el(
      "p",
      { class: "muted" },
      `opened by @${issue.author} · ${issue.state} · labels: ${issue.labels.join(", ") || "none"}`,
    ),
    ...issue.runs.map((r) =>
      el(
        "p",
        { class: "run" },
        `Run ${r.id} of ${r.playbook}: ${r.status}${r.status === "completed" ? "" : `, at ${r.current}`}`,
      ),
    ),
  );
  const items = issue.comments.map((c) => {
    const body = el("div", { class: "markdown" });
    body.innerHTML = c.html;
    const attributes = {
      class: c.bot ? "comment bot" : "comment",
      "data-comment": String(c.id),
      // Where a link to the comment (`#issuecomment-N`) leads.
      id: `issuecomment-${c.id}`,
    };
    // A run's status comment, for whoever needs to find it (the README's picture is taken of it).
    if (c.status) attributes["data-status-comment"] = "";
    return el(
      "li",
      attributes,
      el(
        "div",
        { class: "who" },
        `@${c.author}${c.bot ? " (bot)" : ""}${c.edited ? " · edited" : ""}`,
      ),
      body,
      el("div", { class: "reactions" }, c.reactions.map((r) => REACTIONS[r] ?? r).join(" ")),
    );
  });
  // What people opened (a comment's flowchart, its events) stays open when the thread is redrawn.
  const opened = openDetails();
  $("#thread").replaceChildren(...items);
  for (const [id, indexes] of opened) {
    const details = $(`#thread li[data-comment="${id}"]`)?.querySelectorAll("details") ?? [];
    for (const i of indexes) if (details[i]) details[i].open = true;
  }
  for (const code of $("#thread").querySelectorAll("code.language-mermaid")) {
    const holder = el("div", { class: "diagram" });
    code.parentElement.replaceWith(holder);
    await drawInto(holder, code.textContent);
  }
}

async function refresh() {
  try {
    const s = await call("GET", "/api/state");
    $("#repository").textContent = s.repository;
    state.playbooks = s.playbooks;
    editor.setPlaybooks(s.playbooks, s.kindOutputs);
    renderPlaybooks();
    renderPeople(s.people, s.permissions);
    renderIssues(s.issues);
    renderPulls(s.pulls);
    await renderThread();
  } catch (err) {
    notice(err.message, true);
  }
}

/**
 * A link in a comment to the sandbox's issue or pull request (the server turned GitHub's
 * addresses into `#issue-N`, `#pull-N`) opens it here.
 */
function followSandboxLink(e) {
  const href = e.target.closest?.("a[href^='#']")?.getAttribute("href") ?? "";
  const m = /^#(issue|pull)-(\d+)$/.exec(href);
  if (!m) return;
  e.preventDefault();
  if (m[1] === "issue") {
    state.issue = Number(m[2]);
    $("#issue-select").value = m[2];
    void renderThread();
    $("#issue-pane").scrollIntoView({ block: "start" });
    return;
  }
  const pull = $(`#pulls li[data-pull="${m[2]}"]`);
  pull?.scrollIntoView({ block: "center" });
  pull?.classList.add("flash");
  setTimeout(() => pull?.classList.remove("flash"), 1500);
}

function wire() {
  $("#thread").addEventListener("click", followSandboxLink);
  $("#save").addEventListener("click", () => void save());
  $("#run-cases").addEventListener("click", () => void runCases());
  $("#issue-select").addEventListener("change", (e) => {
    state.issue = e.target.value ? Number(e.target.value) : undefined;
    void renderThread();
  });
  $("#new-playbook").addEventListener("submit", (e) => {
    e.preventDefault();
    const file = $("#new-file").value.trim() || "new-playbook.yml";
    const id = file.replace(/\.ya?ml$/, "").replace(/[^A-Za-z0-9_-]/g, "-");
    openPlaybook({
      file,
      tier: "repository",
      source: starterPlaybook(id),
    });
  });
  $("#add-person").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await call("POST", "/api/people", {
        login: $("#person-login").value.trim(),
        permission: "write",
      });
      $("#person-login").value = "";
      await refresh();
    } catch (err) {
      notice(err.message, true);
    }
  });
  $("#new-issue").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await call("POST", "/api/issues", {
        title: $("#new-issue-title").value,
        body: $("#new-issue-body").value,
        author: $("#actor").value,
      });
      state.issue = r.number;
      $("#new-issue-title").value = "";
      $("#new-issue-body").value = "";
      await refresh();
    } catch (err) {
      notice(err.message, true);
    }
  });
  $("#comment").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!state.issue) return notice("Open or choose an issue first.", true);
    try {
      await call("POST", `/api/issues/${state.issue}/comments`, {
        author: $("#actor").value,
        body: $("#comment-body").value,
      });
      $("#comment-body").value = "";
      await refresh();
      void check();
    } catch (err) {
      notice(err.message, true);
    }
  });
  $("#label").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!state.issue) return notice("Open or choose an issue first.", true);
    try {
      await call("POST", `/api/issues/${state.issue}/labels`, {
        author: $("#actor").value,
        label: $("#label-name").value,
      });
      $("#label-name").value = "";
      await refresh();
      void check();
    } catch (err) {
      notice(err.message, true);
    }
  });
  // What the app does on its own (reminders, timeouts) shows without a click.
  setInterval(() => {
    if (state.issue && document.visibilityState === "visible") void renderThread();
  }, 3000);
}

const editor = createPlaybookEditor($("#editor"), scheduleCheck);
// The browser's console (and the page's tests) reach the editor here.
window.playground = { editor };
wire();
await refresh();
const first =
  state.playbooks.find((p) => p.tier === "repository") ??
  state.playbooks.find((p) => p.id === "hello-world");
if (first) openPlaybook(first, { show: false });
document.body.dataset.ready = "true";
