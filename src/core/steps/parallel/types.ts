import type { PlaybookError } from "../../engine/errors.js";
import type { Value } from "../../engine/state.js";

/** Where a fork stands after a lane ended: it goes on, it is done (with outputs), or it failed. */
export type JoinDecision =
  | { type: "wait" }
  | { type: "done"; outputs: Record<string, Value> }
  | { type: "fail"; error: PlaybookError };
