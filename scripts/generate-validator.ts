// Writes src/core/format/generated/playbook-validator.ts: the playbook JSON Schema compiled ahead of
// time (ajv standalone code), so no process pays for compiling it at start-up. Run by
// `npm run schema:write`; a test fails when the file is not what the schema compiles to.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  generateMetaValidatorSource,
  generateValidatorSource,
} from "../src/core/format/validator-source.js";

const target = fileURLToPath(
  new URL("../src/core/format/generated/playbook-validator.ts", import.meta.url),
);
writeFileSync(target, generateValidatorSource());
process.stdout.write(`wrote ${target}\n`);

const metaTarget = fileURLToPath(
  new URL("../src/core/format/generated/json-schema-meta-validator.ts", import.meta.url),
);
writeFileSync(metaTarget, generateMetaValidatorSource());
process.stdout.write(`wrote ${metaTarget}\n`);
