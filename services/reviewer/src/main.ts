// Wiring only: settings → NATS → the review stage with the configured reviewer → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { chooseReviewer } from "./choose-reviewer.js";
import { configSchema } from "./config.js";
import { reviewStageWith } from "./review.js";
import type { Reviewer } from "./reviewer.js";

let reviewer: Reviewer | undefined;

await runStageService({
  name: "reviewer",
  stage: "review",
  description: "scores a chosen call's confidence and applies policy: threshold, approvals, dry run (stage review)",
  env: process.env,
  defaultHealthPort: 8084,
  configSchema,
  handle: (packet, config) => reviewStageWith(packet, config, (reviewer ??= chooseReviewer(config))),
});
