/** A triage playbook whose delegate is followed by prose branches, and the delegate it runs. */
export const TRIAGE = `apiVersion: playbook-bot/v1
id: triage
name: Triage
description: Gathers recent changes in a delegate, then a person picks the branch.
on: { command: triage }
entrypoint: sub
nodes:
  sub:
    type: playbook
    playbook: changes
    mode: delegate
    with: { ns: shop }
    next:
      - { condition: a deploy broke it, label: rollback, goto: roll }
      - { condition: nothing changed, label: dig, goto: deeper }
  roll:
    type: end
    advice: Roll back the deploy.
  deeper:
    type: end
    advice: Dig deeper.
`;

export const CHANGES = `apiVersion: playbook-bot/v1
id: changes
inputs:
  ns: { type: string, required: true }
steps:
  - id: deploys
    type: investigate
    expected_findings: [recent_deploy]
  - id: done
    type: end
    conclusion: gathered
`;
