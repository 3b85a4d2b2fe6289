// Wiring only: settings → NATS → the select stage with the configured selector → drain on SIGTERM.
import { runStageService } from "@switchyard/runtime";
import { chooseSelector } from "./choose-selector.js";
import { configSchema } from "./config.js";
import { selectStageWith } from "./select.js";
import type { Selector } from "./selector.js";

let selector: Selector | undefined;

await runStageService({
  name: "selector",
  stage: "select",
  description: "picks one tool and its arguments among the candidates, with alternatives (stage select)",
  env: process.env,
  defaultHealthPort: 8083,
  configSchema,
  handle: (packet, config) => selectStageWith(packet, config, (selector ??= chooseSelector(config))),
});
