// Wiring only: settings → NATS → the review stage with the configured reviewer → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { chooseReviewer } from "./choose-reviewer.js";
import { configSchema } from "./config.js";
import { reviewStage } from "./review.js";

await runStageService({
  name: "reviewer",
  stage: "review",
  description: "scores a chosen call's confidence and applies policy: threshold, approvals, dry run (stage review)",
  env: process.env,
  readsCandidates: true,
  defaultHealthPort: 8084,
  configSchema,
  deps: (config, health) => ({ config, reviewer: chooseReviewer(config, health) }),
  handle: reviewStage,
});
