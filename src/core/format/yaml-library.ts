import * as esmBuild from "js-yaml";

/** The parts of js-yaml the core uses: the event parser, the value builder and the dumper. */
export type YamlLibrary = Pick<
  typeof esmBuild,
  | "CORE_SCHEMA"
  | "EVENT_ID"
  | "YAMLException"
  | "constructFromEvents"
  | "getScalarValue"
  | "parseEvents"
  | "dump"
>;

let library: YamlLibrary = esmBuild;

/** The js-yaml the core parses with: its ESM build, unless a host gave a faster one. */
export function yamlLibrary(): YamlLibrary {
  return library;
}

/**
 * Use another build of js-yaml (the same version). Under Node its CommonJS build runs the same
 * parser about 2.5× faster than the ESM build (`src/adapters/node/yaml.ts`).
 */
export function useYamlLibrary(other: YamlLibrary): void {
  library = other;
}
