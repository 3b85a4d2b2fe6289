// Wiring only: settings → NATS → tool names from the catalog → (the model: continuation, tool need) → the intent stage → drain on SIGTERM.
import { CATALOG_BUCKET, mirrorCatalog, openBucket } from "@switchyard/bus";
import { readConfig } from "@switchyard/config";
import { modelClientFor } from "@switchyard/llm";
import { drainOnSignals, exitOnSettingsError, runStage, startService } from "@switchyard/runtime";
import { configSchema } from "./config.js";
import { intentStage } from "./stage.js";

exitOnSettingsError("intent");
const config = readConfig(configSchema, process.env);
const service = await startService({ name: "intent", description: "decides whether a message needs a tool at all (stage intent)", env: process.env, defaultHealthPort: 8081 });
const catalog = await mirrorCatalog(await openBucket(service.nc, CATALOG_BUCKET, service.topology));
service.onStop(() => catalog.stop());
function* toolNames(): Iterable<string> {
  for (const tool of catalog.all()) yield tool.name;
}
drainOnSignals(service);
const model = modelClientFor(config, config.INTENT_MODEL, { role: "intent model", health: service.dependencies });
const deps = { config, catalog: { toolNames }, ...(model ? { model } : {}) };
await runStage(service, "intent", (packet) => intentStage(packet, deps));
await service.dependencies.checkAll();
service.setReady(true);
