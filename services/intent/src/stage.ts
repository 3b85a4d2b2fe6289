/**
 * The intent stage as the service runs it, `(packet, deps)` like every stage: with a model
 * (INTENT_MODEL), first its two questions — after a plan's last step, do the results answer
 * the request (continuation.ts); for a message the rules leave undecided, does it need a
 * tool (model-tool-need.ts) — then the rules (intent.ts), which take the model's verdicts.
 */
import type { ModelClient } from "@switchyard/llm";
import type { Packet, StageOutcome } from "@switchyard/packet";
import type { Config } from "./config.js";
import { judgeContinuation } from "./continuation.js";
import { decideIntent } from "./intent.js";
import type { IntentCatalog } from "./intent.js";
import { askToolNeed } from "./model-tool-need.js";

export interface IntentStageDeps {
  config: Config;
  catalog: IntentCatalog;
  /** The intent model's client; absent: the rules alone. */
  model?: ModelClient;
}

/** The intent stage; main.ts hands it every packet on `switchyard.packets.intent`. */
export async function intentStage(packet: Packet, deps: IntentStageDeps): Promise<StageOutcome> {
  const { config, catalog, model } = deps;
  if (!model) return decideIntent(packet, config, catalog);
  await judgeContinuation(packet, model, config);
  return decideIntent(packet, config, catalog, await askToolNeed(packet, model, config, catalog));
}
