import { makeDir, write } from "../../helpers/git-repo.js";

/**
 * A repository with two playbooks: `main` delegates to `child`. `main` has an error after an
 * astral character (columns count UTF-16 code units) and a warning; `child` is valid.
 */
export const MAIN = `apiVersion: playbook-bot/v1
id: main
description: Delegates to the child.
inputs:
  package: { type: string, required: true }
steps:
  - id: greet
    type: comment
    description: Greets.
    body: "😀 {{ inputs.pakage }}"
  - id: delegate
    type: playbook
    description: Runs the child.
    playbook: child
    mode: delegate
  - id: finish
    type: end
    advice: Child said {{ steps.delegate.outputs.result }}.
`;

export const CHILD = `apiVersion: playbook-bot/v1
id: child
description: Answers.
steps:
  - id: answer
    type: end
    description: Answers.
outputs:
  result: done
`;

export function repository(): string {
  const dir = makeDir("pb-lsp-");
  write(dir, ".github/playbooks/main.yaml", MAIN);
  write(dir, ".github/playbooks/child.yaml", CHILD);
  return dir;
}
