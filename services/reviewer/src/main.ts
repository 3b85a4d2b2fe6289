// Wiring only: settings → NATS → the review stage → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { configSchema } from "./config.js";
import type { Config } from "./config.js";
import { reviewStage } from "./review.js";

await runStageService<Config>({
  name: "reviewer",
  stage: "review",
  env: process.env,
  defaultHealthPort: 8084,
  configSchema,
  handle: reviewStage,
});
