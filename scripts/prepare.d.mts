// Types of scripts/prepare.mjs, for the tests that import it.
export declare const BUILD_INPUTS: readonly string[];
export declare const STAMP: string;
export declare function changedSince(
  dir: string,
  since: number,
  inputs?: readonly string[],
): string | undefined;
export declare function reasonToBuild(dir: string): string | undefined;
