import { it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { configSchema as gateway } from "../services/gateway/src/config.js";
import { configSchema as intent } from "../services/intent/src/config.js";
import { configSchema as router } from "../services/embedding-router/src/config.js";
import { configSchema as selector } from "../services/selector/src/config.js";
import { configSchema as reviewer } from "../services/reviewer/src/config.js";
import { configSchema as executor } from "../services/executor/src/config.js";

type Schema = { properties: Record<string, object> };
const SERVICES: [string, Schema][] = [
  ["gateway", gateway],
  ["intent", intent],
  ["embedding-router", router],
  ["selector", selector],
  ["reviewer", reviewer],
  ["executor", executor],
];

/** The table row documenting a variable: `| \`NAME\` | default | meaning |` (a row may name two variables). */
function row(doc: string, name: string): string | undefined {
  return doc.split("\n").find((line) => line.startsWith("| ") && line.split("|")[1]!.includes(`\`${name}\``));
}

function checkDocumented(doc: string, where: string, schema: Schema) {
  for (const [name, property] of Object.entries(schema.properties)) {
    const spec = property as { default?: unknown };
    const line = row(doc, name);
    assert.ok(line, `${name} is not documented in ${where}`);
    // An empty default is written "(none)" in the tables.
    if (spec.default !== undefined && spec.default !== "" && typeof spec.default !== "object") {
      assert.ok(line.includes(`\`${String(spec.default)}\``), `${where} gives another default for ${name}: ${line}`);
    }
  }
}

it("docs - every service's README documents its own settings", () => {
  for (const [name, schema] of SERVICES) {
    checkDocumented(readFileSync(new URL(`../services/${name}/README.md`, import.meta.url), "utf8"), `services/${name}/README.md`, schema);
  }
});
