import { describe, expect, it } from "vitest";
import { RULES, RULE_CODES, type RuleCode } from "../../../src/core/rules/catalogue.js";
import {
  validateSet,
  validateSource,
  type PlaybookSource,
  type ValidateOptions,
} from "../../../src/core/rules/validate.js";
import { yaml } from "./helpers.js";

/**
 * One invalid document per rule code: the rule fires exactly where the problem is written. The
 * record is typed by RuleCode, so a rule added to the catalogue without an example fails to compile.
 */
interface Case {
  source: PlaybookSource;
  /** [line, column] or [line, column, endLine, endColumn]. */
  at: number[];
  message: (string | RegExp)[];
  options?: ValidateOptions;
  hint?: string;
  /** Other files of the set (for set-* rules); the case's source is validated as "pb.yaml". */
  others?: Record<string, string>;
}

const CASES: Record<RuleCode, Case> = {
  "yaml-syntax": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
        name: x
    `,
    at: [3, 7, 3, 8],
    message: ["bad indentation of a mapping entry"],
  },
  "yaml-duplicate-key": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: end
          type: comment
    `,
    at: [6, 5, 6, 9],
    message: ["key 'type' appears twice in this mapping (first at line 5, column 5)"],
  },
  "yaml-limit": {
    source: "a: " + "[".repeat(100) + "]".repeat(100) + "\n",
    at: [1],
    message: [/^nesting is too deep/],
  },
  "yaml-encoding": {
    source: new Uint8Array([0x69, 0x64, 0x3a, 0x20, 0x00, 0x0a]),
    at: [1, 1, 1, 1],
    message: ["file is not UTF-8 text (it contains a NUL byte or an invalid byte sequence)"],
  },
  "file-refused": {
    source: {
      refused: {
        message: "file is a symbolic link; links are not followed",
        hint: "commit the playbook itself",
      },
    },
    at: [1, 1, 1, 1],
    message: ["file is a symbolic link"],
  },
  "dialect-unmapped": {
    source: yaml`
      name: t
      owner: o
      steps:
        - if: ${"${{"} fetch(get('x')) }}
          then:
            - checkpoint: Go?
    `,
    at: [4, 13],
    message: [/^the condition 'fetch\(get\('x'\)\)': a call of the function 'fetch' is outside/],
  },
  "dialect-invalid": {
    source: yaml`
      id: t
      symptom: s
      entrypoint: a
      nodes:
        a:
          description: ""
    `,
    at: [6, 19],
    message: ["node 'a' has an empty description"],
  },
  "dialect-drift": {
    source: yaml`
      id: t
      symptom: s
      type: general
      entrypoint: a
      nodes:
        a:
          description: done
    `,
    at: [3, 1],
    message: [/^Triagent does not read `type:` from the file/],
  },
  "schema-unknown-field": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          bodyy: x
    `,
    at: [6, 5, 6, 10],
    message: ["steps[0].bodyy: unknown field 'bodyy' for a comment step — did you mean 'body'?"],
  },
  "schema-missing-field": {
    source: yaml`
      apiVersion: playbook-bot/v1
      name: x
    `,
    at: [1, 1],
    message: ["(document): a playbook needs the field 'id'"],
  },
  "schema-type": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      name: [a]
    `,
    at: [3, 7, 3, 9],
    message: ["name: expected a string, found a list"],
  },
  "schema-value": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: end
          status: sucess
    `,
    at: [6, 13, 6, 19],
    message: [
      "steps[0].status: 'sucess' is not allowed (expected one of: success, failure, neutral) — did you mean 'success'?",
    ],
  },
  "schema-format": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      limits: { timeout: 5 minutes }
    `,
    at: [3, 20, 3, 29],
    message: ["limits.timeout: '5 minutes' does not match ^([0-9]+[smhd])+$"],
  },
  "schema-step-type": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comit
    `,
    at: [5, 11, 5, 16],
    message: ["steps[0].type: unknown step kind 'comit'", "did you mean 'commit'?"],
  },
  "schema-api-version": {
    source: yaml`
      apiVersion: playbook-bot/v2
      id: t
    `,
    at: [1, 13, 1, 28],
    message: ["apiVersion: 'playbook-bot/v2' is not supported (expected 'playbook-bot/v1')"],
  },
  "schema-shape": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: end
          on_error: [retry]
    `,
    at: [6, 15, 6, 21],
    message: ["steps[0].on_error: expected a string or a mapping, found a list"],
  },
  "id-format": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: "bad id"
    `,
    at: [2, 6, 2, 12],
    message: ["id: 'bad id' is not a valid id"],
  },
  "tool-format": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      requires: { tools: [kubectl] }
    `,
    at: [3, 21, 3, 28],
    message: ["requires.tools[0]: tool 'kubectl' must be written as server/tool"],
  },
  "step-duplicate-id": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
        - id: a
          type: end
    `,
    at: [7, 9, 7, 10],
    message: ["steps[1].id: step id 'a' is already used at line 4"],
  },
  "steps-and-nodes": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: a, type: end }
      nodes:
        b: { type: end }
    `,
    at: [5, 1, 5, 6],
    message: ["nodes: a playbook has either a steps list or a nodes map, not both"],
  },
  "entrypoint-unresolved": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      entrypoint: strt
      nodes:
        start: { type: end, name: S }
    `,
    at: [3, 13, 3, 17],
    message: ["entrypoint: 'strt' names no node — did you mean 'start'?"],
  },
  "goto-unresolved": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
          next: finsh
        - id: finish
          type: end
    `,
    at: [7, 11, 7, 16],
    message: ["steps[0].next: 'finsh' names no step — did you mean 'finish'?"],
  },
  "self-loop": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      limits: { max_steps: 5 }
      steps:
        - id: a
          type: comment
          body: x
          next:
            - { when: "issue.number > 1", goto: a }
        - id: b
          type: end
    `,
    at: [9, 43, 9, 44],
    message: ["steps[0].next[0].goto: step 'a' branches to itself"],
  },
  "branch-empty": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
          next:
            - { when: " ", goto: b }
        - id: b
          type: end
    `,
    at: [8, 18, 8, 19],
    message: ["steps[0].next[0]: the branch's when is empty"],
  },
  "branch-mixed": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
          next:
            - { when: "true", label: yes, goto: b }
        - id: b
          type: end
    `,
    at: [8, 25, 8, 30],
    message: ["steps[0].next[0].label: only prose condition branches have a /choose label"],
  },
  "branch-duplicate-label": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
          next:
            - { condition: one, label: x, goto: b }
            - { condition: two, label: x, goto: b }
        - id: b
          type: end
    `,
    at: [9, 9],
    message: ["steps[0].next[1]: '/choose x' would be ambiguous: branch 0 has the same label"],
  },
  "terminal-missing": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      limits: { max_steps: 5 }
      steps:
        - id: a
          type: comment
          body: x
          next: b
        - id: b
          type: comment
          body: y
          next: a
    `,
    at: [4, 1, 4, 6],
    message: ["no reachable step ends the playbook: every path loops forever"],
  },
  unreachable: {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
          next: c
        - id: b
          type: comment
          body: y
        - id: c
          type: end
    `,
    at: [8, 9, 8, 10],
    message: ["steps[1]: step 'b' can never be reached from 'a'"],
  },
  "cycle-without-limit": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: x
        - id: b
          type: comment
          body: y
          next:
            - { when: "issue.number > 1", goto: a }
        - id: c
          type: end
    `,
    at: [4, 5],
    message: ["steps loop (a → b → a) but limits.max_steps is not set"],
  },
  "handoff-not-terminal": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: end
          next: b
        - id: b
          type: end
    `,
    at: [6, 5, 6, 9],
    message: ["steps[0].next: an end step ends the run and cannot have next"],
  },
  "delegate-shape": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      entrypoint: a
      nodes:
        a:
          type: playbook
          playbook: child
          mode: delegate
    `,
    at: [6, 5],
    message: ["nodes.a: a delegating node needs next: to resume the parent after the child ends"],
  },
  "rule-shadowed": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: look
          type: investigate
          expected_findings: [oom, deploy]
        - id: decide
          type: decide
          rules:
            - { id: oom, all: [oom], conclusion: c1 }
            - { id: oom-deploy, all: [oom, deploy], conclusion: c2 }
        - id: done
          type: end
    `,
    at: [11, 15, 11, 25],
    message: [
      "steps[1].rules[1]: rule 'oom-deploy' can never match: rule 'oom' above it matches whenever it does (first match wins)",
    ],
  },
  "finding-unknown": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: look
          type: investigate
          expected_findings: [oom_killed]
        - id: decide
          type: decide
          rules:
            - { id: r, all: [oom_kiled], conclusion: c }
        - id: done
          type: end
    `,
    at: [10, 24, 10, 33],
    message: [
      "steps[1].rules[0].all[0]: finding 'oom_kiled' is used here but no step expects it — did you mean 'oom_killed'?",
    ],
  },
  "checkpoint-target": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: ok
          type: checkpoint
          message: go?
          on_reject: stp
        - id: stop
          type: end
    `,
    at: [7, 16, 7, 19],
    message: ["steps[0].on_reject: 'stp' names no step — did you mean 'stop'?"],
  },
  "input-default": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        level:
          type: enum
          values: [patch, minor]
          default: major
      steps:
        - id: a
          type: comment
          body: "{{ inputs.level }}"
    `,
    at: [7, 14, 7, 19],
    message: ["inputs.level.default: default 'major' is not one of the values (patch, minor)"],
  },
  "input-shape": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        n:
          type: number
          min: 5
          max: 1
      steps:
        - { id: a, type: comment, body: "{{ inputs.n }}" }
    `,
    at: [6, 10, 6, 11],
    message: ["inputs.n.min: min 5 is greater than max 1"],
  },
  "regex-invalid": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        s:
          type: string
          pattern: '(a)\1'
      steps:
        - { id: a, type: comment, body: "{{ inputs.s }}" }
    `,
    at: [6, 15, 6, 20],
    message: ["inputs.s.pattern: pattern '(a)\\1' does not compile: invalid escape sequence"],
  },
  "template-syntax": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: "${"${{"} inputs.x }}"
    `,
    at: [6, 12, 6, 27],
    message: ["steps[0].body: '${{ inputs.x }}' is GitHub Actions syntax, not a playbook template"],
  },
  "template-unresolved": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        package: { type: string }
      steps:
        - id: a
          type: comment
          body: "bump {{ inputs.pacakge }}"
    `,
    at: [8, 12, 8, 37],
    message: [
      "steps[0].body: '{{ inputs.pacakge }}' names no declared input — did you mean 'package'?",
    ],
  },
  "template-order": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: c
          type: comment
          body: "{{ steps.b.outputs.name }}"
        - id: b
          type: branch
          name: feature/x
        - id: e
          type: end
    `,
    at: [6, 12, 6, 38],
    message: [
      "steps[0].body: '{{ steps.b.outputs.name }}' is used in step 'c', but step 'b' does not always run before it",
    ],
  },
  "template-conditional": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: b
          type: branch
          if: "issue.number > 1"
          name: feature/x
        - id: c
          type: comment
          body: "{{ steps.b.outputs.name }}"
        - id: e
          type: end
    `,
    at: [10, 12, 10, 38],
    message: [
      "steps[1].body: step 'b' may be skipped by its if, leaving '{{ steps.b.outputs.name }}' empty",
    ],
  },
  "expression-syntax": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          if: "issue.number >"
          body: x
        - id: e
          type: end
    `,
    at: [6, 10, 6, 24],
    message: ["steps[0].if: expression ends too early at character 15 of 'issue.number >'"],
  },
  "file-missing": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: ai
          prompt_file: prompts/triage.md
    `,
    at: [6, 18, 6, 35],
    message: [
      "steps[0].prompt_file: file 'prompts/triage.md' does not exist (looked relative to the playbook file)",
    ],
    options: { fileExists: () => false },
  },
  "path-unsafe": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: commit
          branch: main
          message: m
          files:
            - { path: ../x, content: y }
    `,
    at: [9, 17, 9, 21],
    message: ["steps[0].files[0].path: path '../x' is unsafe: it leaves the repository with '..'"],
  },
  "ref-invalid": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: branch
          name: feature..x
    `,
    at: [6, 11, 6, 21],
    message: ["steps[0].name: branch name 'feature..x' is not a valid git ref: it contains '..'"],
  },
  "step-shape": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: commit
          branch: main
          message: m
    `,
    at: [4, 5],
    message: [
      "steps[0]: a commit step needs files: (content to write) or paths: (files to commit)",
    ],
  },
  "ai-write-unapproved": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: ai
          prompt: fix it
          scope: write
    `,
    at: [7, 12, 7, 17],
    message: [
      "steps[0].scope: write scope lets the model change things, but no checkpoint approves it first",
    ],
  },
  "ai-tool-scope": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: ai
          prompt: Look at the logs.
          tools: [github/file_read, shell/bash]
    `,
    at: [7, 31, 7, 41],
    message: [
      "steps[0].tools[1]: shell/bash may change things (shell runs commands), but the step's scope is read-only",
    ],
  },
  "verify-unknown": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: ai
          prompt: Summarise.
          verify: jsonn
    `,
    at: [7, 13],
    message: ["steps[0].verify: no check named 'jsonn' is registered — did you mean 'json'?"],
  },
  "evidence-missing": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: d
          type: decide
          require_evidence: true
          rules:
            - { id: known, all: [db_row_missing], conclusion: not_persisted }
            - { id: guess, conclusion: probably_cache }
    `,
    at: [9, 9],
    message: [
      "steps[0].rules[1]: rule 'guess' concludes 'probably_cache' without naming any finding, and the step requires evidence",
    ],
  },
  "script-templated": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: s
          type: script
          shell: bash
          run: npm install {{ inputs.package }}
    `,
    at: [7, 10],
    message: [
      "steps[0].run: the script's text is passed to the shell as written: '{{ … }}' is not filled in there",
    ],
  },
  "contract-schema": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: hi
          output_schema: { type: object, propertys: {} }
    `,
    at: [7, 20],
    message: [
      /^steps\[0\]\.output_schema: not a valid JSON Schema: strict mode: unknown keyword: "propertys"/,
    ],
  },
  "response-schema": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: checkpoint
          message: ok?
          response_schema: { type: string }
    `,
    at: [7, 22],
    message: [
      "steps[0].response_schema: a response_schema describes the k=v values of /approve, so its type must be object",
    ],
  },
  "set-duplicate-id": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: shared
      steps: [{ id: e, type: end, name: E }]
    `,
    others: {
      "a.yaml": "apiVersion: playbook-bot/v1\nid: shared\nsteps: [{ id: e, type: end }]\n",
    },
    at: [2, 5, 2, 11],
    message: ["id: playbook id 'shared' is also used by a.yaml"],
  },
  "set-locked-id": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: alert-triage
      active: false
      steps: [{ id: e, type: end, name: E }]
    `,
    others: {},
    options: {
      known: [
        {
          id: "alert-triage",
          locked: true,
          playbook: { apiVersion: "playbook-bot/v1", id: "alert-triage", steps: [] },
        },
      ],
    },
    at: [2, 5, 2, 17],
    message: [
      "id: 'alert-triage' is a system playbook of the bot: a repository cannot replace or disable it, so this file is not used",
    ],
  },
  "set-unresolved-playbook": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: e
          type: end
          handoff: [storag]
    `,
    others: {
      "s.yaml": "apiVersion: playbook-bot/v1\nid: storage\nsteps: [{ id: e, type: end }]\n",
    },
    at: [6, 15, 6, 21],
    message: ["steps[0].handoff[0]: no playbook has id 'storag' — did you mean 'storage'?"],
  },
  "set-delegation-cycle": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: a
      steps:
        - { id: call, type: playbook, playbook: b, mode: delegate }
        - { id: e, type: end }
    `,
    others: {
      "b.yaml":
        "apiVersion: playbook-bot/v1\nid: b\nsteps:\n  - { id: call, type: playbook, playbook: a, mode: delegate }\n  - { id: e, type: end }\n",
    },
    at: [4, 43, 4, 44],
    message: ["steps[0].playbook: delegation cycle: b → a → b"],
  },
  "set-depth": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: a
      limits: { max_depth: 1 }
      steps:
        - { id: call, type: playbook, playbook: b, mode: delegate }
        - { id: e, type: end }
    `,
    others: {
      "b.yaml":
        "apiVersion: playbook-bot/v1\nid: b\nsteps:\n  - { id: call, type: playbook, playbook: c, mode: delegate }\n  - { id: e, type: end }\n",
      "c.yaml": "apiVersion: playbook-bot/v1\nid: c\nsteps: [{ id: e, type: end }]\n",
    },
    at: [2, 5, 2, 6],
    message: ["id: delegation from 'a' nests 2 levels deep, more than limits.max_depth 1"],
  },
  "set-delegate-terminal": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: a
      steps:
        - { id: call, type: playbook, playbook: b, mode: delegate }
        - { id: e, type: end }
    `,
    others: {
      "b.yaml": "apiVersion: playbook-bot/v1\nid: b\nsteps: [{ id: e, type: end, handoff: [a] }]\n",
    },
    at: [4, 43, 4, 44],
    message: ["steps[0].playbook: 'b' has no terminal that returns: every way it ends hands off"],
  },
  "set-inputs": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: a
      steps:
        - id: call
          type: playbook
          playbook: b
          mode: delegate
          with: { namespace: x }
        - { id: e, type: end }
    `,
    others: {
      "b.yaml":
        "apiVersion: playbook-bot/v1\nid: b\ninputs: { ns: { type: string } }\nsteps: [{ id: e, type: end }]\n",
    },
    at: [8, 24, 8, 25],
    message: ["steps[0].with.namespace: 'b' has no input 'namespace'"],
    hint: "map only its inputs: ns",
  },
  "input-unused": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        unused_one: { type: string }
      steps:
        - { id: e, type: end, name: E }
    `,
    at: [4, 3, 4, 13],
    message: ["inputs.unused_one: input 'unused_one' is declared but never used"],
  },
  "needs-unknown": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: build, type: comment, body: b }
        - { id: tag, type: comment, body: t, needs: [buld] }
    `,
    at: [5, 48, 5, 52],
    message: ["steps[1].needs[0]: 'buld' names no step — did you mean 'build'?"],
  },
  "needs-cycle": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: root, type: comment, body: r }
        - { id: a, type: comment, body: a, needs: [b] }
        - { id: b, type: comment, body: b, needs: [a] }
    `,
    at: [5, 45],
    message: ["a → b → a need each other"],
  },
  "needs-unreachable": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: root, type: comment, body: r }
        - { id: a, type: comment, body: a, needs: [b] }
        - { id: b, type: comment, body: b, needs: [a] }
        - { id: c, type: comment, body: c, needs: [a, root] }
    `,
    at: [7, 45],
    message: ["step 'c' can never start: it waits for 'a'"],
  },
  "join-unmet": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          join: { count: 3 }
          branches:
            a: [{ id: a1, type: comment, body: a }]
            b: [{ id: b1, type: comment, body: b }]
    `,
    at: [6, 20, 6, 21],
    message: ["'p' waits for 3 completed branches but has 2"],
  },
  "goto-out-of-branch": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          branches:
            a: [{ id: a1, type: comment, body: a, next: after }]
            b: [{ id: b1, type: comment, body: b }]
        - { id: after, type: comment, body: x }
    `,
    at: [7, 51, 7, 56],
    message: ["'a1' in branch 'a' of 'p' goes to 'after', outside its branch"],
  },
  "parallel-unsupported": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          branches:
            a: [{ id: a1, type: comment, body: a }]
            b: [{ id: b1, type: end }]
    `,
    at: [8, 27, 8, 30],
    message: ["an end step cannot run inside branch 'b' of 'p'"],
  },
  "output-unsure": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          join: any
          branches:
            a: [{ id: a1, type: comment, body: a }]
            b: [{ id: b1, type: comment, body: b }]
        - { id: after, type: comment, body: "{{ steps.a1.outputs.url }}" }
    `,
    at: [10, 40],
    message: [
      "'p' goes on after any one branch, so branch 'a' (with 'a1') may have been cancelled",
    ],
  },
  "item-outside-for-each": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: say, type: comment, body: "{{ item }}" }
    `,
    at: [4, 38],
    message: [
      "'{{ item }}' has a value only in the items of a for_each step, and 'say' has no for_each",
    ],
  },
  "step-no-description": {
    source: yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: e
          type: end
    `,
    at: [4, 9, 4, 10],
    message: ["steps[0]: step 'e' has neither name nor description"],
  },
};

function run(c: Case): ReturnType<typeof validateSource> {
  if (!c.others) return validateSource("pb.yaml", c.source, c.options);
  const files = [
    ...Object.entries(c.others).map(([file, source]) => ({ file, source })),
    { file: "pb.yaml", source: c.source },
  ];
  return validateSet(files, c.options).find((r) => r.file === "pb.yaml") as ReturnType<
    typeof validateSource
  >;
}

describe("every rule in the catalogue fires at the right place", () => {
  it("has an example for every rule code", () => {
    expect(Object.keys(CASES).sort()).toEqual([...RULE_CODES].sort());
  });

  for (const code of RULE_CODES) {
    it(code, () => {
      const c = CASES[code];
      let report: ReturnType<typeof validateSource> | undefined;
      expect(() => (report = run(c))).not.toThrow();
      const found = report?.diagnostics.filter((d) => d.rule === code) ?? [];
      expect(found, JSON.stringify(report?.diagnostics, null, 1)).toHaveLength(1);
      const d = found[0];
      expect(d?.severity).toBe(RULES[code].severity);
      expect(d?.file).toBe("pb.yaml");
      const where = [d?.line, d?.column, d?.endLine, d?.endColumn].slice(0, c.at.length);
      expect(where).toEqual(c.at);
      for (const m of c.message) {
        if (typeof m === "string") expect(d?.message).toContain(m);
        else expect(d?.message).toMatch(m);
      }
      expect(d?.hint ?? "").not.toBe("");
      if (c.hint !== undefined) expect(d?.hint).toBe(c.hint);
    });
  }
});
