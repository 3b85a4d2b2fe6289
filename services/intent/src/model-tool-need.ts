/**
 * Intent with a model (optional), for a new message the rules leave undecided: a model
 * behind any OpenAI-compatible chat API says whether it needs a tool at all (seed 000: the
 * rules first, then the configured model). Without INTENT_MODEL, or when the model cannot
 * answer, the message goes on undecided and the router weighs it.
 */
import { addFallback, addReflection, contentOf, intentOf, isFinal, Turn_Role } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import type { ModelClient } from "@switchyard/llm";
import { fallbackOf } from "@switchyard/telemetry";
import type { Config } from "./config.js";
import { decideToolNeed, REFLECTION_STEP, verdictOf } from "./intent.js";
import type { IntentCatalog } from "./intent.js";

/** The model's verdict, as the intent stage takes it (`decideIntent`'s `judged`). */
export interface ModelToolNeed {
  needsTool: boolean;
  /** "model:<name>", recorded as the packet's detectedBy. */
  rule: string;
  reason: string;
}

/** How many tool names the model is shown, so that it knows what kind of tools there are. */
const SHOWN_TOOLS = 60;

const SYSTEM = [
  "You decide whether a user's message to an assistant needs a tool call or not.",
  "A tool is needed to read, search or change the user's own files, notes, data, accounts, calendar or devices, to get live or current information, to look something up in an outside service, or to run something.",
  "No tool is needed for chat, thanks, opinions, explanations, general knowledge, or writing the assistant can do by itself.",
  "When the message could go either way and one of the tools listed fits it, answer that a tool is needed.",
  "The message may be in any language.",
].join(" ");

const ANSWER_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["needs_tool", "reason"],
  properties: { needs_tool: { type: "boolean" }, reason: { type: "string" } },
};

/**
 * Asks the model about a new packet whose message no rule settled; undefined when there is
 * nothing to ask (a reinjected or final packet, a message a rule settled) or the model could
 * not answer (the reflection log says why).
 */
export async function askToolNeed(
  packet: Packet,
  client: ModelClient,
  config: Pick<Config, "INTENT_MODEL" | "INTENT_TEMPERATURE">,
  catalog: IntentCatalog,
): Promise<ModelToolNeed | undefined> {
  if (isFinal(packet.state) || intentOf(packet).steps.length > 0) return undefined;
  const content = contentOf(packet);
  const need = decideToolNeed(content.originalPrompt, content.history, catalog);
  if (verdictOf(need, content.originalPrompt) !== "undecided") return undefined;

  const answer = await client.completeJson({
    model: config.INTENT_MODEL,
    temperature: config.INTENT_TEMPERATURE,
    system: SYSTEM,
    user: promptOf(packet, catalog),
    schemaName: "tool_need",
    schema: ANSWER_SCHEMA,
    check: (value) => (typeof value["needs_tool"] === "boolean" ? [] : ['"needs_tool" must be true or false.']),
  });
  const model = `model ${config.INTENT_MODEL}`;
  if (!answer.ok || typeof answer.value["needs_tool"] !== "boolean") {
    const failure = answer.ok ? client.unusableAnswer(config.INTENT_MODEL, "its answer has no usable verdict") : answer.failure;
    addReflection(packet, { step: REFLECTION_STEP, summary: `${model} could not say whether a tool is needed (${failure.message}); the router decides` });
    addFallback(packet, fallbackOf(REFLECTION_STEP, failure, "the router's tool-need gate decided whether a tool is needed"));
    return undefined;
  }
  const reason = typeof answer.value["reason"] === "string" ? answer.value["reason"].trim() : "";
  return { needsTool: answer.value["needs_tool"], rule: `model:${config.INTENT_MODEL}`, reason: reason || "no reason given" };
}

function promptOf(packet: Packet, catalog: IntentCatalog): string {
  const content = contentOf(packet);
  const names = [...catalog.toolNames()].slice(0, SHOWN_TOOLS);
  const earlier = content.history.slice(-4).map((turn) => `${(Turn_Role[turn.role] ?? "user").toLowerCase()}: ${turn.content}`);
  return [
    `Message: ${content.originalPrompt}`,
    ...(earlier.length > 0 ? [`Earlier turns:\n${earlier.join("\n")}`] : []),
    `Tools available${names.length === SHOWN_TOOLS ? " (some of them)" : ""}: ${names.join(", ") || "(none listed)"}`,
  ].join("\n\n");
}
