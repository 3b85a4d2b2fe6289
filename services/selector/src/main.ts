// Wiring only: settings → NATS → the select stage with the configured selector → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { chooseSelector } from "./choose-selector.js";
import { configSchema } from "./config.js";
import { selectStage } from "./select.js";

await runStageService({
  name: "selector",
  stage: "select",
  description: "picks one tool and its arguments among the candidates, with alternatives (stage select)",
  env: process.env,
  readsCandidates: true,
  defaultHealthPort: 8083,
  configSchema,
  deps: (config, health) => ({ config, selector: chooseSelector(config, health) }),
  handle: selectStage,
});
