import { modelClientFor } from "@switchyard/llm";
import type { DependencyHealth } from "@switchyard/telemetry";
import type { Config } from "./config.js";
import { heuristicSelector } from "./heuristic-selector.js";
import { modelSelector } from "./model-selector.js";
import type { Selector } from "./selector.js";

/**
 * The selector the settings ask for: the model named by SELECTOR_MODEL, with the heuristic
 * as its fallback; or, with no model set, the heuristic alone, saying so in every packet.
 * With `health`, the model is the service's "selection model" dependency (`/readyz`).
 */
export function chooseSelector(config: Config, health?: DependencyHealth): Selector {
  const heuristic = heuristicSelector(config);
  const client = modelClientFor(config, config.SELECTOR_MODEL, health && { role: "selection model", health });
  if (!client) return { ...heuristic, kind: `${heuristic.kind}, no SELECTOR_MODEL set` };
  return modelSelector(client, config, heuristic);
}
