import { aiWriteUnapproved, verifyUnknown } from "../steps/ai/checks.js";
import { refInvalid } from "../steps/branch/checks.js";
import { responseSchema } from "../steps/checkpoint/checks.js";
import { evidenceMissing, ruleShadowed } from "../steps/decide/checks.js";
import { parallelUnsupported } from "../steps/parallel/checks.js";
import { delegateShape } from "../steps/playbook/checks.js";
import { scriptTemplated } from "../steps/script/checks.js";
import { aiToolScope } from "./templates/ai-tool-scope.js";
import { contractSchema } from "./templates/contract-schema.js";
import { gotoOutOfBranch } from "./dag/goto-out-of-branch.js";
import { itemOutsideForEach } from "./dag/item-outside-for-each.js";
import { joinUnmet } from "./dag/join-unmet.js";
import { needsCycle } from "./dag/needs-cycle.js";
import { needsUnknown } from "./dag/needs-unknown.js";
import { needsUnreachable } from "./dag/needs-unreachable.js";
import { outputUnsure } from "./dag/output-unsure.js";
import { branchDuplicateLabel } from "./graph/branch-duplicate-label.js";
import { branchEmpty } from "./graph/branch-empty.js";
import { branchMixed } from "./graph/branch-mixed.js";
import { checkpointTarget } from "./graph/checkpoint-target.js";
import { cycleWithoutLimit } from "./graph/cycle-without-limit.js";
import { entrypointUnresolved } from "./graph/entrypoint-unresolved.js";
import { findingUnknown } from "./graph/finding-unknown.js";
import { gotoUnresolved } from "./graph/goto-unresolved.js";
import { handoffNotTerminal } from "./graph/handoff-not-terminal.js";
import { selfLoop } from "./graph/self-loop.js";
import { stepDuplicateId } from "./graph/step-duplicate-id.js";
import { stepsAndNodes } from "./graph/steps-and-nodes.js";
import { terminalMissing } from "./graph/terminal-missing.js";
import { unreachable } from "./graph/unreachable.js";
import { jsonSchema } from "./schema/json-schema.js";
import { setDelegateTerminal } from "./set/set-delegate-terminal.js";
import { setDelegationCycle } from "./set/set-delegation-cycle.js";
import { setDepth } from "./set/set-depth.js";
import { setDuplicateId } from "./set/set-duplicate-id.js";
import { setInputs } from "./set/set-inputs.js";
import { setLockedId } from "./set/set-locked-id.js";
import { setUnresolvedPlaybook } from "./set/set-unresolved-playbook.js";
import { inputUnused } from "./style/input-unused.js";
import { stepNoDescription } from "./style/step-no-description.js";
import { dialectConversion } from "./syntax/dialect-conversion.js";
import { yamlSource } from "./syntax/yaml-source.js";
import { expressionSyntax } from "./templates/expression-syntax.js";
import { fileMissing } from "./templates/file-missing.js";
import { inputDefault } from "./templates/input-default.js";
import { inputShape } from "./templates/input-shape.js";
import { pathUnsafe } from "./templates/path-unsafe.js";
import { regexInvalid } from "./templates/regex-invalid.js";
import { stepShape } from "./templates/step-shape.js";
import { templateConditional } from "./templates/template-conditional.js";
import { templateOrder } from "./templates/template-order.js";
import { templateSyntax } from "./templates/template-syntax.js";
import { templateUnresolved } from "./templates/template-unresolved.js";

/**
 * Every rule module, registered here and nowhere else: the catalogue (./catalogue.ts), the
 * validator (./validate.ts), `playbook-bot rules`, configs and reports all read this list.
 *
 * To add a rule: write one module that exports a `FileRule` (one playbook), a `SetRule` (across
 * playbooks) or, for codes one pass cannot separate, a `RulePass` (see ./rule.ts), under
 * src/core/rules/<layer>/<code>.ts or, when it checks one step kind only, in
 * src/core/steps/<kind>/checks.ts; then add one line to this list. The order is the catalogue's
 * (the listing and docs follow it); findings are sorted by position whatever the order.
 *
 * Rule modules and their analyses import ../format/diagnostics.js, ./catalogue.js and this list
 * for types only: those modules read this list as they load, so a module they import back would
 * be read before it has loaded.
 */
export const RULE_MODULES = [
  // syntax: the loader
  yamlSource,
  dialectConversion,
  // schema: one JSON Schema pass
  jsonSchema,
  // graph
  stepDuplicateId,
  stepsAndNodes,
  entrypointUnresolved,
  gotoUnresolved,
  selfLoop,
  branchEmpty,
  branchMixed,
  branchDuplicateLabel,
  terminalMissing,
  unreachable,
  cycleWithoutLimit,
  handoffNotTerminal,
  delegateShape,
  ruleShadowed,
  evidenceMissing,
  findingUnknown,
  checkpointTarget,
  needsUnknown,
  needsCycle,
  needsUnreachable,
  joinUnmet,
  gotoOutOfBranch,
  parallelUnsupported,
  // templates
  inputDefault,
  inputShape,
  regexInvalid,
  templateSyntax,
  templateUnresolved,
  templateOrder,
  outputUnsure,
  itemOutsideForEach,
  templateConditional,
  expressionSyntax,
  fileMissing,
  pathUnsafe,
  refInvalid,
  stepShape,
  aiWriteUnapproved,
  aiToolScope,
  verifyUnknown,
  responseSchema,
  contractSchema,
  scriptTemplated,
  // set: across the playbooks of one set
  setDuplicateId,
  setLockedId,
  setUnresolvedPlaybook,
  setDelegationCycle,
  setDepth,
  setDelegateTerminal,
  setInputs,
  // style
  inputUnused,
  stepNoDescription,
] as const;
