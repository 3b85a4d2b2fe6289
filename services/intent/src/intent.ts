/**
 * The intent stage. A new packet: does the turn need a tool, and in how many
 * steps? A reinjected packet (the executor ran a step and sent it back): is
 * there another step, and may the loop run it under max_reinjections?
 */
import { create } from "@bufbuild/protobuf";
import {
  addReflection,
  contentOf,
  finish,
  intentOf,
  isFinal,
  Packet_State,
  routingOf,
  scopeOf,
  ToolRoutingState_ExecutionStatus,
  Turn_Role,
  TurnSchema,
} from "@switchyard/packet";
import type { Intent, Packet, StageOutcome, ToolRoutingState, Turn } from "@switchyard/packet";
import { buildQuery, isAnaphoric, lowerWords, stripSmalltalk, viewsOf } from "@switchyard/request-text";
import type { Config } from "./config.js";
import { detectToolNeed } from "./detect.js";
import { detectDomains } from "./domains.js";
import type { ToolNeed } from "./detect.js";
import type { ModelToolNeed } from "./model-tool-need.js";
import { splitSteps } from "./steps.js";
import { mentionedTool } from "./tool-mentions.js";

const Status = ToolRoutingState_ExecutionStatus;

/** The reflection-log step name of every entry this stage writes. */
export const REFLECTION_STEP = "intent";

/**
 * The rules of the stage, on `packet` (mutating it): `{ next: "route" }` when a step is
 * to be routed, `{ done: true }` when the packet has ended (its state and
 * reflection log say how). A packet that is already final is left alone.
 * `judged`: the intent model's verdict on a message the rules left undecided
 * (model-tool-need.ts), which settles it.
 */
export function decideIntent(packet: Packet, config: Config, catalog: IntentCatalog = NO_CATALOG, judged?: ModelToolNeed): StageOutcome {
  if (isFinal(packet.state)) return { done: true };
  return intentOf(packet).steps.length === 0 ? firstPass(packet, config, catalog, judged) : reinjectedPass(packet, config);
}

/** What the stage knows of the catalog: the tool names, so a message that names a tool is routed. */
export interface IntentCatalog {
  toolNames(): Iterable<string>;
}

const NO_CATALOG: IntentCatalog = { toolNames: () => [] };

/**
 * Whether the turn needs a tool. A short turn that only points back ("do it
 * again") inherits the verdict of the latest earlier user request; a turn a
 * rule recognised as chat ("thanks", "what do you think of it?") never does.
 */
export function decideToolNeed(prompt: string, history: readonly Turn[], catalog: IntentCatalog = NO_CATALOG): ToolNeed {
  const need = detectToolNeed(prompt);
  if (need.needsTool || need.rule !== "default:no-indicator") return need;
  // Only a message no rule recognised may be claimed by a tool's name: chat,
  // opinions and how-to questions stay chat even when they mention one.
  const tool = mentionedTool(prompt, catalog.toolNames());
  if (tool) return { needsTool: true, rule: `tool:${tool}` };
  if (!isAnaphoric(prompt)) return need;
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i]!;
    if (turn.role !== Turn_Role.USER) continue;
    const earlier = detectToolNeed(turn.content);
    if (earlier.rule.startsWith("smalltalk:")) continue;
    return earlier.needsTool ? { needsTool: true, rule: `context:${earlier.rule}` } : need;
  }
  return need;
}

function firstPass(packet: Packet, config: Config, catalog: IntentCatalog, judged?: ModelToolNeed): StageOutcome {
  const content = contentOf(packet);
  const intent = intentOf(packet);
  const routing = routingOf(packet);
  const prompt = content.originalPrompt;
  const byRules = decideToolNeed(prompt, content.history, catalog);
  const rulesVerdict = verdictOf(byRules, prompt);
  // The model is heard only where the rules left the message undecided.
  const byModel = rulesVerdict === "undecided" ? judged : undefined;
  const need: ToolNeed = byModel ?? byRules;
  const verdict = byModel ? (byModel.needsTool ? "tool" : "chat") : rulesVerdict;
  intent.detectedBy = need.rule;
  intent.domains = detectDomains(prompt, content.history);

  if (verdict === "chat") {
    const why = byModel ? `${byModel.rule.replace(/^model:/, "model ")}: ${byModel.reason}` : whyNoTool(need.rule);
    intent.userIntent = "chat";
    routing.needsTool = false;
    routing.routingRequested = false;
    routing.executionStatus = Status.SKIPPED;
    addReflection(packet, { step: REFLECTION_STEP, summary: `no tool needed (${need.rule}): ${why}` });
    finish(packet, Packet_State.COMPLETED, `no tool needed: ${why}`);
    return { done: true };
  }

  const steps = splitSteps(prompt);
  if (steps.length === 0) steps.push(prompt.trim());
  intent.userIntent = "tool_routing";
  intent.steps = steps;
  intent.stepIndex = 0;
  setQuery(packet, config);
  // Undecided: routed with needsTool false, so the router's tool-need gate decides (and sets it when a tool is needed).
  routing.needsTool = verdict === "tool";
  routing.routingRequested = true;
  routing.executionStatus = Status.PENDING;
  const restricted = restrictToDetectedDomains(packet, config);
  const domains = intent.domains.length > 0 ? `; domains: ${intent.domains.join(", ")}` : "";
  const verdictNote =
    verdict !== "tool"
      ? `tool need undecided (${need.rule}), the router decides`
      : byModel
        ? `tool needed (${need.rule}: ${byModel.reason})`
        : `tool needed (${need.rule})`;
  addReflection(packet, {
    step: REFLECTION_STEP,
    summary:
      `${verdictNote}; ${plural(steps.length, "step")}: ${numbered(steps)}; ` +
      `routing step 1 with query ${describeQuery(intent)}${domains}${restricted ? " (routing restricted to them)" : ""}`,
  });
  packet.state = Packet_State.ROUTING;
  return { next: "route" };
}

/**
 * What the rules settle: "tool" for a request they recognise, "chat" for an
 * empty turn, opinion questions, and small talk: a closing (thanks, a
 * farewell, "that's all") followed by anything that asks nothing, whatever
 * its length ("cool, thanks, that's all I needed"), or another opener with at
 * most SMALLTALK_TAIL_WORDS words after it ("ok, sounds fine") unless those
 * words are an order ("great, merge it"). Everything else ("undecided": no
 * indicator, how-to and explain questions, a greeting before a real message)
 * goes to the router, whose tool-need gate weighs the words against the
 * catalog. How-to questions are not settled as chat: on MetaTool most of them
 * ask for what a tool does ("how can I find cheap flights?").
 */
export function verdictOf(need: ToolNeed, prompt: string): "tool" | "chat" | "undecided" {
  if (need.needsTool) return "tool";
  if (need.rule === "default:empty" || need.rule.startsWith("opinion:")) return "chat";
  if (need.rule.startsWith("smalltalk:")) {
    const { rest, closing } = stripSmalltalk(viewsOf(prompt).masked);
    if (isOrder(rest)) return "undecided";
    if (closing && !ASKS.test(rest)) return "chat";
    if (lowerWords(rest).length <= SMALLTALK_TAIL_WORDS) return "chat";
  }
  return "undecided";
}

/** Words small talk may carry after its opener and still be only small talk. */
const SMALLTALK_TAIL_WORDS = 3;

// A question or a request in what follows small talk: "thanks! can you also…", "ok, what about…".
const ASKS = /\?|\b(?:can|could|would|will)\s+(?:you|u)\b|^(?:what|who|whom|where|when|why|how|which|is|are|do|does|did|should|also|now|next|then|and|but|please)\b/;
// A verb and its object: "merge it", "ship this", "send the draft".
const ORDER = /^([a-z]+)\s+(?:it|them|this|that|these|those|the|my|our|all|everything)\b/;
// Words that open a reaction rather than an order ("love it", "that works", "so true").
const NOT_ORDERS = new Set([
  "love", "like", "enjoy", "hate", "appreciate", "mean", "get", "see", "saw", "did", "got", "dig", "miss",
  "that", "this", "it", "i", "you", "we", "they", "he", "she", "so", "very", "really", "just", "all", "much", "what", "thank",
  "for", "with", "to", "in", "on", "at", "of", "about", "from", "by", "as", "and", "or", "but", "if", "not", "too",
]);

/** Small talk's rest is an order when it opens with a verb in the plain form and its object: "merge it", not "loved it". */
function isOrder(rest: string): boolean {
  const verb = ORDER.exec(rest)?.[1];
  return verb !== undefined && !NOT_ORDERS.has(verb) && !/(?:ed|ing)$/.test(verb);
}

function reinjectedPass(packet: Packet, config: Config): StageOutcome {
  const intent = intentOf(packet);
  const routing = routingOf(packet);
  const { steps } = intent;
  const index = intent.stepIndex;
  const label = `step ${index + 1} of ${steps.length}`;
  const tool = routing.selectedTool?.toolName ?? "?";
  const ofSteps = steps.length > 1 ? ` (${label})` : "";
  const rest = steps.slice(index + 1);
  const notDone = rest.length > 0 ? `; steps not done: ${numbered(rest, index + 1)}` : "";

  switch (routing.executionStatus) {
    case Status.FAILED: {
      const error = routing.executionResult?.error;
      addReflection(packet, {
        step: REFLECTION_STEP,
        summary: `${label} failed${error ? `: ${error}` : ""}; the loop stops${notDone}`,
      });
      finish(packet, Packet_State.COMPLETED, `tool failed: ${tool}${ofSteps}: ${shorten(error || "no error message")}`);
      return { done: true };
    }
    case Status.USER_DENIED:
      addReflection(packet, { step: REFLECTION_STEP, summary: `${label} was denied; the loop stops${notDone}` });
      finish(packet, Packet_State.COMPLETED, `denied by the user: ${tool} not run${ofSteps}`);
      return { done: true };
    case Status.EXECUTED:
    case Status.SKIPPED:
      break;
    default: {
      // Only the executor reinjects, and only after a call; anything else is a bug upstream.
      const reason = `reinjected with execution status ${Status[routing.executionStatus]}; expected a finished step`;
      addReflection(packet, { step: REFLECTION_STEP, summary: reason });
      finish(packet, Packet_State.FAILED, reason);
      return { done: true };
    }
  }

  // A dry run or a skipped call still ends its step: the loop moves on, the data fields say what happened.
  const outcome = routing.dryRun ? "was a dry run" : routing.executionStatus === Status.SKIPPED ? "was skipped" : "done";

  if (rest.length === 0) {
    const all = steps.length === 1 ? "the only step is done" : `all ${steps.length} steps done`;
    addReflection(packet, { step: REFLECTION_STEP, summary: outcome === "done" ? all : `${all} (${label} ${outcome})` });
    const ran = outcome !== "done" ? `${label} ${outcome}` : steps.length === 1 ? `${tool} ran` : `all ${steps.length} steps ran`;
    finish(packet, Packet_State.COMPLETED, `done: ${ran}`);
    return { done: true };
  }

  if (routing.reinjectionCount >= routing.maxReinjections) {
    routing.executionStatus = Status.SKIPPED;
    addReflection(packet, {
      step: REFLECTION_STEP,
      summary: `reinjection cap reached (${routing.reinjectionCount} of ${routing.maxReinjections})${notDone}`,
    });
    finish(
      packet,
      Packet_State.COMPLETED,
      `reinjection cap reached (${routing.maxReinjections}): ${rest.length} of ${steps.length} steps not run; send them again or raise MAX_REINJECTIONS`,
    );
    return { done: true };
  }

  intent.stepIndex = index + 1;
  clearStep(routing);
  setQuery(packet, config);
  addReflection(packet, {
    step: REFLECTION_STEP,
    summary:
      `${label} ${outcome}; routing step ${index + 2} of ${steps.length}: ${JSON.stringify(steps[index + 1])} ` +
      `with query ${describeQuery(intent)}`,
  });
  packet.state = Packet_State.ROUTING;
  return { next: "route" };
}

/** Sets the router's query for the current step; earlier steps count as earlier user turns. */
function setQuery(packet: Packet, config: Config): void {
  const intent = intentOf(packet);
  const step = intent.steps[intent.stepIndex] ?? "";
  const earlierSteps = intent.steps
    .slice(0, intent.stepIndex)
    .map((content) => create(TurnSchema, { role: Turn_Role.USER, content }));
  const query = buildQuery(step, [...contentOf(packet).history, ...earlierSteps], { maxTurns: config.INTENT_MAX_QUERY_TURNS });
  intent.query = query.text;
  intent.queryContext = query.context;
}

/** The query as the reflection log shows it: `"turn it off" (after "turn on the kitchen light")`. */
function describeQuery(intent: Intent): string {
  const context = intent.queryContext.length > 0 ? ` (after ${intent.queryContext.map((t) => JSON.stringify(t)).join(", ")})` : "";
  return `${JSON.stringify(intent.query)}${context}`;
}

/**
 * With INTENT_DOMAIN_FILTER on, the detected domains become the packet's own
 * (which the router filters on) when the request named none; true when they did.
 */
function restrictToDetectedDomains(packet: Packet, config: Config): boolean {
  const detected = intentOf(packet).domains;
  const scope = scopeOf(packet);
  if (!config.INTENT_DOMAIN_FILTER || detected.length === 0 || scope.domains.length > 0) return false;
  scope.domains = [...detected];
  return true;
}

/**
 * Forgets what belonged to the step just run, so the next one starts clean.
 * The result itself stays in the packet's data fields, where the executor put it.
 */
function clearStep(routing: ToolRoutingState): void {
  routing.candidates = [];
  routing.selectedTool = undefined;
  routing.alternativeTools = [];
  routing.reviewConfidence = 0;
  routing.reviewReasoning = "";
  routing.dryRun = false;
  routing.executionStatus = Status.PENDING;
  routing.executionResult = undefined;
  routing.toolNeed = undefined;
}

function whyNoTool(rule: string): string {
  const family = rule.slice(0, rule.indexOf(":"));
  switch (family) {
    case "smalltalk":
      return "small talk; the model answers it without a tool";
    case "opinion":
      return "an opinion question; the model answers it from what it knows";
    case "question":
      return rule === "question:how-to"
        ? "a how-to question; it asks for steps, not for an action"
        : "an explanation; the model answers it from what it knows";
    default:
      return rule === "default:empty"
        ? "the prompt is empty"
        : "no path, link, command, search, memory or device request found";
  }
}

/** The most of a tool's error a state reason quotes; the whole error is in the execution result. */
const REASON_ERROR_MAX = 200;

function shorten(text: string): string {
  return text.length > REASON_ERROR_MAX ? `${text.slice(0, REASON_ERROR_MAX - 1)}…` : text;
}

function numbered(steps: readonly string[], from = 0): string {
  return steps.map((step, i) => `${from + i + 1}) ${step}`).join(", ");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
