import { modelClientFor } from "@switchyard/llm";
import type { DependencyHealth } from "@switchyard/telemetry";
import type { Config } from "./config.js";
import { heuristicReviewer } from "./heuristic-reviewer.js";
import { modelReviewer } from "./model-reviewer.js";
import type { Reviewer } from "./reviewer.js";

/**
 * The reviewer the settings ask for: the model named by REVIEWER_MODEL, with the heuristic
 * as its fallback; or, with no model set, the heuristic alone, saying so in every packet.
 * With `health`, the model is the service's "review model" dependency (`/readyz`).
 */
export function chooseReviewer(config: Config, health?: DependencyHealth): Reviewer {
  const client = modelClientFor(config, config.REVIEWER_MODEL, health && { role: "review model", health });
  if (!client) return { ...heuristicReviewer, kind: `${heuristicReviewer.kind}, no REVIEWER_MODEL set` };
  return modelReviewer(client, config, heuristicReviewer);
}
