// `pnpm run docs`: writes docs/configuration.md, the configuration reference, from the built
// TypeBox schemas of every service (run after `tsc -b`). `node scripts/docs.mjs <dir>` writes
// it into <dir> instead: test/configuration-reference.test.ts compares that with the committed one.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { settingsReference } from "../packages/config/dist/index.js";
import { llmConfigProperties } from "../packages/llm/dist/index.js";
import { runtimeConfigSchema } from "../packages/runtime/dist/index.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const schemaOf = async (service) => (await import(`../services/${service}/dist/config.js`)).configSchema;
const MODELS = Object.keys(llmConfigProperties);

const sections = [
  { title: "Every service", about: "Read by each of the six services.", schema: runtimeConfigSchema },
  { title: "gateway", about: "The front doors: HTTP, gRPC, MCP and the model-API doors ([services/gateway](../services/gateway/README.md)).", schema: await schemaOf("gateway") },
  { title: "intent", about: "Whether a turn needs a tool, and the router's query ([services/intent](../services/intent/README.md)).", schema: await schemaOf("intent"), omit: MODELS },
  { title: "embedding-router", about: "The tool index and its search ([services/embedding-router](../services/embedding-router/README.md)).", schema: await schemaOf("embedding-router") },
  { title: "models", about: "Read by intent, selector and reviewer; a stage whose model is unset uses its built-in heuristic.", schema: { properties: llmConfigProperties } },
  { title: "selector", about: "Picks the tool and its arguments ([services/selector](../services/selector/README.md)).", schema: await schemaOf("selector"), omit: MODELS },
  { title: "reviewer", about: "Reviews the selected call, policy and approvals ([services/reviewer](../services/reviewer/README.md)).", schema: await schemaOf("reviewer"), omit: MODELS },
  { title: "executor", about: "Runs the call on its MCP server ([services/executor](../services/executor/README.md)).", schema: await schemaOf("executor") },
];

const dir = process.argv[2] ?? join(ROOT, "docs");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "configuration.md"), settingsReference(sections));
