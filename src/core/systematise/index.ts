/**
 * `/systematise`: playbooks from the work an issue shows, and improvements to playbooks from
 * their runs. Pure functions over plain evidence; the GitHub side (reading the issue, opening
 * the pull request) and the AI adapter (wording) are wired elsewhere.
 */
export type {
  AdhocEntry,
  Approval,
  FindingValue,
  IssueEvidence,
  LinkedPullRequest,
  RunAdhoc,
  RunEvidence,
  StepVisit,
} from "./evidence.js";
export {
  DEFAULT_DRAFT_LIMITS,
  DONE_STEP,
  GENERIC_LABELS,
  OTHER_PATH_STEP,
  draftPlaybook,
  triggerLabels,
  type DraftLimits,
  type DraftOptions,
  type DraftProblem,
  type DraftResult,
} from "./draft.js";
export {
  proposeImprovement,
  type Improvement,
  type ImprovementOptions,
  type ProposedChange,
} from "./improve.js";
export {
  applySeams,
  readSeams,
  type InvestigationBlock,
  type Seam,
  type SeamsResult,
} from "./seams.js";
export { applyWording, type Draft, type Wording, type WordingOptions } from "./wording.js";
export {
  adhocSignature,
  signatureParts,
  similar,
  type SignatureOptions,
  type SignatureParts,
  type SimilarOptions,
} from "./signature.js";
export {
  checkPlaybookText,
  serialisePlaybook,
  type CheckOptions,
  type CheckResult,
} from "./check.js";
