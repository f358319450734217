import type { Scalar } from "../../engine/state.js";

/** A handoff: the run ended and asks for a run of `playbook` with these inputs. */
export type StartPlaybookParams = {
  playbook: string;
  inputs?: Record<string, Scalar>;
};

/** Nothing: the new run reports for itself. */
export type StartPlaybookOutputs = Record<string, never>;

/** What the effect does, in words (a failure says what was being done). */
export const describeStartPlaybookEffect = (): string => "start_playbook";
