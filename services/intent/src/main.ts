// Wiring only: settings → NATS → the intent stage → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { configSchema } from "./config.js";
import type { Config } from "./config.js";
import { intentStage } from "./intent.js";

await runStageService<Config>({
  name: "intent",
  stage: "intent",
  env: process.env,
  defaultHealthPort: 8081,
  configSchema,
  handle: intentStage,
});
