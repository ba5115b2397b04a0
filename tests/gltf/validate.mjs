// Validates glTF files with the Khronos glTF validator and prints one JSON report per file
// (numErrors, numWarnings, the messages) as a JSON list. Usage: node validate.mjs FILE...
// The validator is installed by `bash scripts/setup.sh --python` into .tools/gltf-validator.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const prefix = process.env.GLTF_VALIDATOR_PREFIX || path.join(here, "..", "..", ".tools", "gltf-validator");
const require = createRequire(path.join(prefix, "package.json"));
const validator = require("gltf-validator");

const reports = [];
for (const file of process.argv.slice(2)) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: file,
    maxIssues: 100,
  });
  reports.push({
    file,
    numErrors: report.issues.numErrors,
    numWarnings: report.issues.numWarnings,
    numInfos: report.issues.numInfos,
    messages: report.issues.messages.map((m) => `${m.severity === 0 ? "error" : m.severity === 1 ? "warning" : "info"} ${m.code} ${m.pointer ?? ""}: ${m.message}`),
  });
}
console.log(JSON.stringify(reports, null, 1));
