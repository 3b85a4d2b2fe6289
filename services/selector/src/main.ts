// Wiring only: settings → NATS → the select stage → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { configSchema } from "./config.js";
import type { Config } from "./config.js";
import { selectStage } from "./select.js";

await runStageService<Config>({
  name: "selector",
  stage: "select",
  env: process.env,
  defaultHealthPort: 8083,
  configSchema,
  handle: selectStage,
});
