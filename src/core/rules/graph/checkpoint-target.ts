import { isCheckpointEdge, missingEdgeFinding, missingTargets } from "../analysis/graph.js";
import type { FileRule } from "../rule.js";

/** A checkpoint's on_reject and on_timeout name steps that exist. */
export const checkpointTarget: FileRule<"checkpoint-target"> = {
  code: "checkpoint-target",
  layer: "graph",
  severity: "error",
  summary: "a checkpoint's on_reject or on_timeout names no step",
  requires: "one-step-form",
  check: (ctx) =>
    missingTargets(ctx).flatMap((missing) =>
      missing.kind === "edge" && isCheckpointEdge(missing.edge)
        ? [missingEdgeFinding(ctx, missing.edge, "checkpoint-target")]
        : [],
    ),
};
