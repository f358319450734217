/** The fields every step has, whatever its kind (each kind's type, in its folder, extends it). */
import type { AUTHORITIES, STEP_KINDS } from "./schema.js";

export type ErrorPolicy = string;

export interface Branch {
  when?: string;
  condition?: string;
  label?: string;
  goto?: string;
  default?: string;
}

export type Next = string | Branch[];

export interface StepBase {
  id: string;
  type: (typeof STEP_KINDS)[number];
  name?: string;
  description?: string;
  if?: string;
  next?: Next;
  on_error?: ErrorPolicy | Record<string, ErrorPolicy>;
  authority?: (typeof AUTHORITIES)[number];
  timeout?: string;
  idempotency_key?: string;
  /** Steps of the same list that must be completed or skipped first: the list runs as a graph. */
  needs?: string[];
  /** A template naming a list: the step runs once per item (`{{ item }}`, `{{ item_index }}`). */
  for_each?: string;
  /** JSON Schemas of the data entering and leaving the step (contracts between steps). */
  input_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
}
