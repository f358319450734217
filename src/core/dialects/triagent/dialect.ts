import { cycleAmong } from "../../util/cycle.js";
import type { DialectCode } from "../../rules/syntax/dialect-conversion.js";
import { ID_PATTERN } from "../../format/schema.js";
import {
  loadSourceText,
  type PathSegment,
  type SourceDocument,
  type SourceLimits,
} from "../../format/source.js";
import { DialectConversion, isObject, type Json } from "../conversion.js";
import type { Dialect, DialectResult } from "../dialect.js";

/**
 * Triagent's playbooks: a graph of `nodes` (no step kinds) from an `entrypoint`, prose `next`
 * branches, `suggested_calls` as `server/tool`, `expected_findings`, `terminal_advice`,
 * `handoff` and `delegate_to`, and `${cluster_id}`/`${namespace}` placeholders in call
 * arguments. Each node becomes the v1 step that does what Triagent's walker does with it.
 */

/** The schema versions Triagent's own loader speaks. */
const SCHEMA_VERSION = 1;
/** The placeholders Triagent fills in call arguments: they become optional inputs. */
const PLACEHOLDERS = ["cluster_id", "namespace"] as const;
const ID = new RegExp(ID_PATTERN);
/** What to do about a finding that names no more specific way out. */
const DEFAULT_HINTS: Record<DialectCode, string> = {
  "dialect-unmapped":
    "rewrite this part in the v1 format (`playbook-bot import <file>` converts the rest)",
  "dialect-invalid": "Triagent's own validator refuses this too: fix it in the file",
  "dialect-drift":
    "nothing needs to change: it is read the way Triagent reads it (`playbook-bot import <file>` writes the v1 equivalent)",
};
/** The bound a looping walk gets (Triagent itself has none). */
const DEFAULT_MAX_STEPS = 100;
const TAG = /^[a-z0-9][a-z0-9-]*$/;

const TOP_FIELDS = new Set([
  "id",
  "symptom",
  "description",
  "entrypoint",
  "nodes",
  "dispatch",
  "version",
  "active",
  "schema_version",
  "services",
  "errors",
  "symptoms",
  "type",
]);
const NODE_FIELDS = new Set([
  "description",
  "suggested_calls",
  "expected_findings",
  "next",
  "terminal_advice",
  "handoff",
  "delegate_to",
]);

export const triagent: Dialect = {
  id: "triagent",
  title: "Triagent",
  // Triagent resolves delegate and handoff targets when the walk gets there.
  softRules: ["set-unresolved-playbook"],
  // Every Triagent playbook takes cluster_id and namespace, whether its calls use them or not.
  quietRules: ["input-unused"],
  recognise: (file, text) =>
    /\.ya?ml$/i.test(file) &&
    /^entrypoint\s*:/m.test(text) &&
    /^nodes\s*:/m.test(text) &&
    /^(symptom|schema_version)\s*:/m.test(text),
  // A proposal: `proposals/<type>/<id>__<proposal>.yaml`, a draft of a new version of `<id>`.
  isDraft: (file, text) => {
    const id = /([^/\\]+)__[A-Za-z0-9_-]+\.ya?ml$/i.exec(file)?.[1];
    return id !== undefined && topId(text) === id;
  },
  load: (file, text, _siblings, limits) => loadTriagent(file, text, limits),
};

/** The `id:` a file writes at its top level, read without parsing it. */
function topId(text: string): string | undefined {
  return /^id:[ \t]*["']?([A-Za-z0-9_-]+)["']?[ \t]*(?:#.*)?$/m.exec(text)?.[1];
}

function loadTriagent(file: string, text: string, limits: SourceLimits): DialectResult {
  const loaded = loadSourceText(file, text, limits);
  if (!loaded.ok) return { ok: false, failure: loaded };
  const doc = loaded.document;
  const c = new Conversion(doc);
  return { ok: true, document: c.convert(), problems: c.problems };
}

class Conversion extends DialectConversion {
  constructor(doc: SourceDocument) {
    super(doc, DEFAULT_HINTS);
  }

  convert(): SourceDocument {
    const src = this.doc.value;
    if (!isObject(src)) {
      this.report("dialect-invalid", [], "a Triagent playbook is a mapping of fields");
      return this.b.build({ apiVersion: "playbook-bot/v1" });
    }
    const out: Json = { apiVersion: "playbook-bot/v1" };
    this.top(src, out);
    const nodes = src.nodes;
    if (!isObject(nodes) || Object.keys(nodes).length === 0) {
      this.report("dialect-invalid", ["nodes"], "no nodes are defined", "add at least one node");
    } else {
      const converted: Json = {};
      this.b.locate(["nodes"], ["nodes"]);
      for (const [id, node] of Object.entries(nodes)) this.node(id, node, converted);
      out.nodes = converted;
      this.graphGates(src, nodes);
      if (src.dispatch === "subagent") this.subagent(src, converted, out);
    }
    const loop = isObject(nodes) ? cycleIn(nodes) : undefined;
    if (loop) {
      // Triagent bounds nothing but pure-transition hops; a run here needs a bound.
      out.limits = { max_steps: DEFAULT_MAX_STEPS };
      this.b.locate(["limits"], ["nodes", loop[0] as string]);
      this.report(
        "dialect-drift",
        ["nodes", loop[0] as string],
        `the walk can loop (${loop.join(" → ")}) and Triagent sets no bound; runs here stop after ${DEFAULT_MAX_STEPS} steps`,
        "set limits.max_steps in a v1 playbook to choose the bound",
        true,
      );
    }
    // Triagent's walk_playbook takes both for every playbook, whether its calls use them or not.
    out.inputs = Object.fromEntries(
      PLACEHOLDERS.map((name) => [
        name,
        {
          type: "string",
          required: false,
          description: `Triagent's \${${name}}, filled into suggested calls.`,
        },
      ]),
    );
    return this.b.build(out);
  }

  private top(src: Json, out: Json): void {
    for (const key of Object.keys(src))
      if (!TOP_FIELDS.has(key))
        this.report(
          "dialect-drift",
          [key],
          `'${key}' is not a Triagent field; Triagent ignores it, and so does this reading`,
          "remove it, or move what it says into the description",
          true,
        );
    if (typeof src.id !== "string" || !src.id)
      this.report("dialect-invalid", ["id"], "the playbook has no id", "add `id: <name>`");
    else this.put(out, "id", src.id, ["id"], ["id"]);
    if (typeof src.symptom !== "string" || !src.symptom.trim())
      this.report(
        "dialect-invalid",
        ["symptom"],
        "the playbook has no symptom",
        "add `symptom:` — the one line that says when to use it",
      );
    else this.put(out, "name", src.symptom, ["name"], ["symptom"]);
    if (typeof src.description === "string")
      this.put(out, "description", src.description, ["description"], ["description"]);
    if (src.entrypoint !== undefined)
      this.put(out, "entrypoint", src.entrypoint, ["entrypoint"], ["entrypoint"]);
    else
      this.report(
        "dialect-invalid",
        ["entrypoint"],
        "the playbook has no entrypoint",
        "name the first node",
      );
    if (src.active !== undefined) this.put(out, "active", src.active, ["active"], ["active"]);
    this.versions(src);
    this.typeAndDispatch(src);
    this.tags(src, out);
  }

  /** `version` and `schema_version`: Triagent's forms, and no newer format than this reads. */
  private versions(src: Json): void {
    if (src.version !== undefined && !/^v[1-9][0-9]*$/.test(String(src.version)))
      this.report(
        "dialect-invalid",
        ["version"],
        `version '${String(src.version)}' is not of the form v<number>`,
        "write v1, v2, … or remove it (Triagent drops it when it saves)",
      );
    const sv = src.schema_version;
    if (sv !== undefined && (!Number.isInteger(sv) || (sv as number) < 0))
      this.report(
        "dialect-invalid",
        ["schema_version"],
        "schema_version must be a whole number ≥ 1",
      );
    else if (typeof sv === "number" && sv > SCHEMA_VERSION)
      this.report(
        "dialect-invalid",
        ["schema_version"],
        `schema_version ${sv} is newer than the Triagent format this reads (${SCHEMA_VERSION})`,
      );
  }

  /** `type:` (which Triagent does not read) and the `dispatch` mode. */
  private typeAndDispatch(src: Json): void {
    if (src.type !== undefined)
      this.report(
        "dialect-drift",
        ["type"],
        "Triagent does not read `type:` from the file (the folder a playbook is in gives its type); it is ignored",
        undefined,
        true,
      );
    if (src.dispatch !== undefined && src.dispatch !== "" && src.dispatch !== "subagent")
      this.report(
        "dialect-invalid",
        ["dispatch"],
        `unknown dispatch mode '${String(src.dispatch)}'`,
        "use `subagent`, or leave it out for a step-by-step walk",
      );
    else if (src.dispatch === "subagent")
      this.report(
        "dialect-drift",
        ["dispatch"],
        "`dispatch: subagent`: one AI step walks the whole playbook and reports its findings, as Triagent's sub-agent does; people see its answer, not each node",
        undefined,
        true,
      );
  }

  /** The `services`, `errors` and `symptoms` lists, as the playbook's tags. */
  private tags(src: Json, out: Json): void {
    const tags: Json = {};
    for (const kind of ["services", "errors", "symptoms"] as const) {
      const list = src[kind];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.some((t) => typeof t !== "string" || !TAG.test(t))) {
        this.report(
          "dialect-invalid",
          [kind],
          `${kind} must be a list of lower-case tags (letters, digits, '-')`,
        );
        continue;
      }
      tags[kind] = list;
      this.b.locate(["tags", kind], [kind], this.doc, true);
    }
    if (Object.keys(tags).length) {
      out.tags = tags;
      this.b.locate(["tags"], [Object.keys(tags)[0] as string]);
    }
  }

  /**
   * `dispatch: subagent`: Triagent hands the whole walk to one agent, which comes back with the
   * findings. Here that is one `ai` step whose prompt is the playbook — every node with its calls,
   * findings and branches — and whose tools are the calls' tools; the nodes, converted and checked
   * above, are what it reads.
   */
  private subagent(src: Json, nodes: Json, out: Json): void {
    this.walkGates(src);
    const lines: string[] = [
      `Walk the playbook "${prose(String(src.symptom ?? src.id))}" from node \`${String(src.entrypoint)}\`, node by node, and record the findings each node expects.`,
    ];
    if (typeof src.description === "string") lines.push("", prose(src.description.trim()));
    const tools = new Set<string>();
    const findings = new Set<string>();
    for (const [id, node] of Object.entries(nodes)) {
      if (!isObject(node) || node.type === "end") continue;
      lines.push("", `## ${id}`, "", String(node.description ?? ""));
      for (const call of Array.isArray(node.suggested_calls) ? node.suggested_calls : []) {
        if (!isObject(call) || typeof call.tool !== "string") continue;
        tools.add(call.tool);
        lines.push(
          `- call \`${call.tool}\`${call.args ? ` with ${JSON.stringify(call.args)}` : ""}`,
        );
      }
      for (const f of Array.isArray(node.expected_findings) ? node.expected_findings : []) {
        findings.add(String(f));
        lines.push(`- record \`${String(f)}\``);
      }
      for (const b of Array.isArray(node.next) ? node.next : [])
        if (isObject(b) && typeof b.condition === "string") {
          const to = String(b.goto);
          const end = nodes[to];
          lines.push(
            isObject(end) && end.type === "end"
              ? `- when ${b.condition}: stop here${typeof end.advice === "string" ? ` and advise: ${end.advice}` : ""}`
              : `- when ${b.condition}: go to ${to}`,
          );
        }
      if (typeof node.playbook === "string")
        lines.push(`- walk playbook \`${node.playbook}\` first`);
    }
    const walk: Json = {
      type: "ai",
      description: "One agent walks the whole playbook (Triagent's dispatch: subagent).",
      prompt: lines.join("\n"),
    };
    if (tools.size) walk.tools = [...tools];
    if (findings.size) walk.expected_findings = [...findings];
    out.entrypoint = "walk";
    out.nodes = { walk, done: { type: "end", description: "The agent's walk is over." } };
    walk.next = "done";
    for (const to of [["entrypoint"], ["nodes"], ["nodes", "walk"], ["nodes", "done"]])
      this.b.locate(to, ["dispatch"]);
  }

  /**
   * Triagent's own checks of the walk's branches, which the v1 graph rules make on a step-by-step
   * walk: every goto names a node, and every node can be reached from the entrypoint.
   */
  private walkGates(src: Json): void {
    const nodes = src.nodes as Json;
    const seen = new Set<string>();
    const visit = (id: string): void => {
      if (seen.has(id) || !isObject(nodes[id])) return;
      seen.add(id);
      const next = (nodes[id] as Json).next;
      (Array.isArray(next) ? next : []).forEach((b: unknown, i) => {
        if (!isObject(b) || typeof b.goto !== "string") return;
        if (!Object.hasOwn(nodes, b.goto))
          this.report(
            "dialect-invalid",
            ["nodes", id, "next", i, "goto"],
            `node '${id}' next[${i}] goto '${b.goto}' does not resolve`,
            "name a node of this playbook",
          );
        else visit(b.goto);
      });
    };
    const entry = typeof src.entrypoint === "string" ? src.entrypoint : "";
    visit(entry);
    for (const id of Object.keys(nodes))
      if (!seen.has(id) && Object.hasOwn(nodes, entry))
        this.report(
          "dialect-invalid",
          ["nodes", id],
          `node '${id}' is unreachable from entrypoint '${entry}'`,
          "add a branch that targets it or remove the node",
          true,
        );
  }

  private node(id: string, node: unknown, out: Json): void {
    const at: PathSegment[] = ["nodes", id];
    if (!ID.test(id))
      this.report(
        "dialect-invalid",
        at,
        `node id '${id}' is not a valid id (letters, digits, '_' and '-', starting with a letter or digit, at most 64)`,
        undefined,
        true,
      );
    if (!isObject(node)) {
      this.report("dialect-invalid", at, `node '${id}' is not a mapping`);
      return;
    }
    for (const key of Object.keys(node))
      if (!NODE_FIELDS.has(key))
        this.report(
          "dialect-drift",
          [...at, key],
          `'${key}' is not a Triagent node field; Triagent ignores it, and so does this reading`,
          undefined,
          true,
        );
    if (typeof node.description !== "string" || !node.description.trim())
      this.report(
        "dialect-invalid",
        [...at, "description"],
        `node '${id}' has an empty description`,
      );
    const step: Json = {};
    this.b.locate(at, at);
    const copy = (key: string, as = key) => {
      const value = typeof node[key] === "string" ? prose(node[key]) : node[key];
      if (value !== undefined) this.put(step, as, value, [...at, as], [...at, key]);
    };
    copy("description");
    const next = Array.isArray(node.next) ? node.next : [];
    const terminal = next.length === 0 || typeof node.terminal_advice === "string";
    if (typeof node.delegate_to === "string") {
      this.delegate(id, node, step, node.delegate_to);
      out[id] = step;
      return;
    }
    const works = node.suggested_calls !== undefined || node.expected_findings !== undefined;
    if (terminal && next.length === 0 && !works) {
      // A plain landing spot: the run ends here with the advice (and the handoffs it offers).
      step.type = "end";
      copy("terminal_advice", "advice");
      copy("handoff");
      out[id] = step;
      return;
    }
    step.type = "investigate";
    this.calls(id, node, step);
    copy("expected_findings");
    if (node.handoff !== undefined && typeof node.terminal_advice !== "string")
      this.report(
        "dialect-invalid",
        [...at, "handoff"],
        `node '${id}' has handoff but no terminal_advice: handoffs live on terminal nodes`,
      );
    if (terminal) {
      // Work first, then the landing spot (and, when the node also has branches, "stop here").
      const end = this.endOf(id, node, out);
      const stop = { condition: "stop here", label: "stop", goto: end };
      if (next.length === 0) {
        step.next = end;
        this.b.locate([...at, "next"], [...at, "terminal_advice"]);
      } else {
        this.branches(id, node, step);
        (step.next as Json[]).push(stop);
        this.b.locate([...at, "next", next.length], [...at, "terminal_advice"], this.doc, true);
      }
    } else this.branches(id, node, step);
    out[id] = step;
  }

  /** A delegate node runs the other playbook and, once it returns, picks a branch. */
  private delegate(id: string, node: Json, step: Json, playbook: string): void {
    const at: PathSegment[] = ["nodes", id];
    const next = Array.isArray(node.next) ? node.next : [];
    step.type = "playbook";
    step.mode = "delegate";
    this.put(step, "playbook", playbook, [...at, "playbook"], [...at, "delegate_to"]);
    for (const [key, why] of [
      ["terminal_advice", "a delegate node returns to this playbook; it cannot also end it"],
      ["handoff", "a delegate node returns to this playbook; it cannot also hand off"],
      [
        "suggested_calls",
        "a delegate node only delegates; its calls belong in the delegated playbook",
      ],
    ] as const)
      if (node[key] !== undefined)
        this.report(
          "dialect-invalid",
          [...at, key],
          `node '${id}' has delegate_to and ${key}: ${why}`,
        );
    if (next.length === 0)
      this.report(
        "dialect-invalid",
        [...at, "delegate_to"],
        `node '${id}' delegates but has no next branches to resume on`,
        "add the branches to take once the delegated playbook returns",
      );
    this.branches(id, node, step);
  }

  /** The end a terminal node's advice becomes: `<id>-end`, placed at the advice. */
  private endOf(id: string, node: Json, out: Json): string {
    const at: PathSegment[] = ["nodes", id];
    const endId = `${id}-end`.slice(0, 64);
    const end: Json = { type: "end", description: `The walk may end after '${id}'.` };
    this.b.locate(["nodes", endId], [...at, "terminal_advice"]);
    if (typeof node.terminal_advice === "string")
      this.put(
        end,
        "advice",
        prose(node.terminal_advice),
        ["nodes", endId, "advice"],
        [...at, "terminal_advice"],
      );
    if (node.handoff !== undefined)
      this.put(end, "handoff", node.handoff, ["nodes", endId, "handoff"], [...at, "handoff"]);
    out[endId] = end;
    return endId;
  }

  private branches(id: string, node: Json, step: Json): void {
    const at: PathSegment[] = ["nodes", id, "next"];
    if (!Array.isArray(node.next)) {
      if (node.next !== undefined)
        this.report(
          "dialect-invalid",
          at,
          `node '${id}': next must be a list of { condition, goto }`,
        );
      return;
    }
    const out: Json[] = [];
    this.b.locate(at, at);
    node.next.forEach((branch: unknown, i: number) => {
      if (!isObject(branch)) {
        this.report("dialect-invalid", [...at, i], `node '${id}' next[${i}] is not a mapping`);
        return;
      }
      if (typeof branch.goto !== "string" || !branch.goto)
        this.report("dialect-invalid", [...at, i], `node '${id}' next[${i}] has an empty goto`);
      else if (branch.goto === id)
        this.report(
          "dialect-invalid",
          [...at, i, "goto"],
          `node '${id}' next[${i}] points at itself`,
          "route through another node",
        );
      if (typeof branch.condition !== "string" || !branch.condition.trim())
        this.report(
          "dialect-invalid",
          [...at, i],
          `node '${id}' next[${i}] has an empty condition: every branch says when it applies`,
        );
      // Triagent's agent moves by naming the target (step_complete's goto): two conditions for
      // one target are one choice, which holds when either does.
      const same = out.find((b) => b.goto === branch.goto && b.label === undefined);
      if (same && branch.label === undefined && typeof branch.condition === "string") {
        same.condition = `${String(same.condition)}; or: ${prose(branch.condition)}`;
        return;
      }
      out.push(
        typeof branch.condition === "string"
          ? { ...branch, condition: prose(branch.condition) }
          : { ...branch },
      );
      this.b.locate([...at, out.length - 1], [...at, i], this.doc, true);
    });
    step.next = out;
  }

  private calls(id: string, node: Json, step: Json): void {
    const at: PathSegment[] = ["nodes", id, "suggested_calls"];
    const calls = node.suggested_calls;
    if (calls === undefined) return;
    if (!Array.isArray(calls)) {
      this.report("dialect-invalid", at, `node '${id}': suggested_calls must be a list`);
      return;
    }
    const converted: unknown[] = [...calls];
    calls.forEach((call: unknown, i: number) => {
      const tool = isObject(call) ? call.tool : undefined;
      if (typeof tool !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(tool))
        this.report(
          "dialect-invalid",
          [...at, i, "tool"],
          `node '${id}' suggested_calls[${i}]: the tool must be written <server>/<tool>`,
        );
      if (!isObject(call)) return;
      // `args:` holding only comments is YAML null: Triagent reads it as a call without args.
      if (call.args === null) {
        const rest = { ...call };
        delete rest.args;
        converted[i] = rest;
        return;
      }
      if (isObject(call.args))
        converted[i] = { ...call, args: this.args(call.args, [...at, i, "args"]) };
    });
    this.put(step, "suggested_calls", converted, at, at);
  }

  /**
   * A call's arguments as Triagent's walker fills them: `${cluster_id}` and `${namespace}` are
   * placeholders (optional inputs here); any other `${…}` stays as written, so it is kept as
   * literal text and the difference is said where it stands.
   */
  private args(value: unknown, at: PathSegment[]): unknown {
    if (Array.isArray(value)) return value.map((v, i) => this.args(v, [...at, i]));
    if (isObject(value))
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, this.args(v, [...at, k])]),
      );
    if (typeof value !== "string" || !value.includes("${")) return value;
    return value.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      if ((PLACEHOLDERS as readonly string[]).includes(name)) return whole;
      this.report(
        "dialect-drift",
        at,
        `'${whole}' is not one of the placeholders Triagent fills (\${cluster_id}, \${namespace}); it stays as written, as Triagent's walker leaves it`,
        "write the value without ${…} if it is meant as text, or declare an input in a v1 playbook",
      );
      // A quoted literal in a template is text, never a name.
      return whole.includes("'") ? `{{ "${whole}" }}` : `{{ '${whole}' }}`;
    });
  }

  /** The walker's whole-graph gates: a landing spot exists, every node is reachable. */
  private graphGates(src: Json, nodes: Json): void {
    const entry = typeof src.entrypoint === "string" ? src.entrypoint : undefined;
    if (entry !== undefined && !(entry in nodes))
      this.report("dialect-invalid", ["entrypoint"], `entrypoint '${entry}' is not a node`);
    const terminal = (n: unknown) =>
      isObject(n) &&
      (!Array.isArray(n.next) || n.next.length === 0 || typeof n.terminal_advice === "string");
    if (!Object.values(nodes).some(terminal))
      this.report(
        "dialect-invalid",
        ["nodes"],
        "no node ends the walk: every node has next branches and none has terminal_advice",
        "give one node terminal_advice",
      );
  }
}

/** A loop through the nodes' branches (and delegate resumes), as the ids along it; else undefined. */
function cycleIn(nodes: Json): string[] | undefined {
  const edges = (id: string): string[] => {
    const n = nodes[id];
    if (!isObject(n) || !Array.isArray(n.next)) return [];
    return n.next.flatMap((b: unknown) =>
      isObject(b) && typeof b.goto === "string" && b.goto in nodes ? [b.goto] : [],
    );
  };
  return cycleAmong(Object.keys(nodes), edges);
}

/**
 * Triagent's prose as text of a template: its walker fills nothing outside call arguments, so a
 * `${…}`, `{{` or `{%` the author wrote stays as written (a quoted literal, never a name).
 */
function prose(text: string): string {
  return text.replace(/\$\{|\{\{|\{%/g, (open) => `{{ '${open}' }}`);
}
