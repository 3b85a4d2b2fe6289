/**
 * The select stage: picks one tool and its arguments among the packet's routing candidates,
 * keeps the runners-up as alternatives, validates the arguments against the tool's
 * inputSchema, and hands the packet to review.
 *
 * Rules that hold whatever Selector implementation is used:
 * - only candidates can be selected; a choice naming any other tool is dropped;
 * - arguments that fail validation cap the selection confidence at 0.5 and are named in the
 *   selection reasoning (the reviewer refuses such a call);
 * - no candidates, or no choice left, ends the packet COMPLETED with the tool SKIPPED;
 * - a bare file name in the chosen call's path arguments takes the folder an earlier step of
 *   the packet listed it in (earlier-steps.ts).
 */
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { addFallback, addReflection, clamp01, contentOf, finish, Packet_State, routingOf, SelectedToolSchema, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet, RoutingCandidate, SelectedTool, StageOutcome } from "@switchyard/packet";
import { asksForAnother, otherObject, requestTexts } from "@switchyard/request-text";
import { fallbackOf } from "@switchyard/telemetry";
import { describeErrors, validateArguments } from "@switchyard/tool-schema";
import type { Config } from "./config.js";
import { earlierSteps, inheritFolders } from "./earlier-steps.js";
import { schemaCorrections, withSchemaSpelling } from "./request-spelling.js";
import { heuristicSelector } from "./heuristic-selector.js";
import type { Choice, Selection, SelectionRequest, Selector } from "./selector.js";

const STEP = "select";
/** Invalid arguments never leave the selector with more confidence than this. */
const INVALID_ARGUMENTS_CAP = 0.5;

export interface SelectStageDeps {
  config: Config;
  /** Who chooses (chooseSelector: a model client, or the heuristic); absent: the built-in heuristic. */
  selector?: Selector;
}

/** The select stage; main.ts hands it every packet on `switchyard.packets.select`. */
export async function selectStage(packet: Packet, deps: SelectStageDeps): Promise<StageOutcome> {
  const { config, selector = heuristicSelector(config) } = deps;
  const request = selectionRequestOf(packet);
  if (request.candidates.length === 0) return skipNoCandidates(packet);
  const read = schemaCorrections(routingOf(packet).spelling, request.candidates).map((c) => `${JSON.stringify(c.written)} as ${JSON.stringify(c.read)}`);
  if (read.length > 0) addReflection(packet, { step: STEP, summary: `Read ${read.join(", ")}: words of the candidates' names or arguments.` });
  return applySelection(packet, request, await selector.select(request), config, selector.kind);
}

/** The text to act on (current step, else query, else original prompt), its fallbacks, and the candidates. */
export function selectionRequestOf(packet: Packet): SelectionRequest {
  const { candidates, toolNeed, spelling } = routingOf(packet);
  // the router's corrections that are words of a candidate (request-spelling.ts)
  const [text = "", ...texts] = withSchemaSpelling(requestTexts(packet), schemaCorrections(spelling, candidates));
  const earlier = earlierSteps(packet);
  return {
    text,
    fallbackTexts: fallbacksOf(text, texts, packet),
    candidates,
    // the gate found no need, or the router could not read the message's language
    ...(toolNeed && (!toolNeed.needed || toolNeed.unreadLanguage) ? { notNeeded: toolNeed.reason } : {}),
    ...(earlier.length > 0 ? { earlier } : {}),
  };
}

/**
 * Where a missing argument may be found: the packet's other request texts. "and the other
 * one?" wants something other than the earlier turns named, so their values are not its
 * values; the one other file the recent results showed is (`otherObject`).
 */
function fallbacksOf(text: string, texts: string[], packet: Packet): string[] {
  if (!asksForAnother(text)) return texts;
  const other = otherObject(text, contentOf(packet).history);
  return other ? [other] : [];
}

/** Writes a selector's answer onto the packet under the stage's rules (see the module comment). */
export function applySelection(
  packet: Packet,
  request: SelectionRequest,
  selection: Selection,
  config: Config,
  kind: string,
): StageOutcome {
  const selectorKind = selection.answeredBy ?? kind;
  const routing = routingOf(packet);
  if (selection.fallback) {
    const chose = selection.choices.find((choice) => request.candidates.some((c) => c.tool?.name === choice.toolName));
    addFallback(packet, fallbackOf(STEP, selection.fallback, `the built-in selector ${chose ? `chose ${chose.toolName}` : "chose no tool"}`));
  }
  const byName = new Map(request.candidates.map((c) => [c.tool?.name ?? "", c]));
  const seen = new Set<string>();
  const outside: string[] = [];
  const choices = selection.choices.filter((choice) => {
    if (!byName.has(choice.toolName)) {
      outside.push(choice.toolName);
      return false;
    }
    if (seen.has(choice.toolName)) return false;
    seen.add(choice.toolName);
    return true;
  });
  const outsideNote = outside.length > 0 ? ` Dropped choices outside the candidates: ${outside.join(", ")}.` : "";

  const best = choices[0];
  if (!best) {
    routing.selectedTool = undefined;
    routing.alternativeTools = [];
    routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
    addReflection(packet, {
      step: STEP,
      summary: `No tool selected (${selectorKind}) among ${request.candidates.length} candidates: ${selection.reasoning}${outsideNote}`,
    });
    finish(
      packet,
      Packet_State.COMPLETED,
      selection.noToolReason ?? `no tool selected among ${request.candidates.length} candidates: ${selection.reasoning}${outsideNote}`,
    );
    return { done: true };
  }

  // A later step inherits the folder an earlier one listed (earlier-steps.ts), whoever chose the call.
  const inherited = inheritFolders(best.params, request.earlier ?? []);
  const inheritedNote = inherited.resolved.length > 0 ? ` Paths from earlier steps: ${inherited.resolved.join("; ")}.` : "";
  const selected = toSelectedTool({ ...best, params: inherited.params, reasoning: `${best.reasoning}${inheritedNote}` }, byName.get(best.toolName)!);
  const alternatives = choices
    .slice(1, 1 + config.SELECTOR_ALTERNATIVES)
    .map((choice) => toSelectedTool(choice, byName.get(choice.toolName)!).tool);

  routing.needsTool = true;
  routing.selectedTool = selected.tool;
  routing.alternativeTools = alternatives;
  // A packet back from reinjection must not carry the previous step's review into this one.
  routing.reviewConfidence = 0;
  routing.reviewReasoning = "";
  routing.dryRun = false;
  routing.approval = undefined;
  routing.executionStatus = ToolRoutingState_ExecutionStatus.AWAITING_CONFIDENCE;
  packet.state = Packet_State.REVIEWING;

  const alternativesNote = alternatives.length > 0 ? ` Alternatives: ${alternatives.map((a) => `${a.toolName} (${a.selectionConfidence.toFixed(2)})`).join(", ")}.` : "";
  const summary = selected.errors
    ? `Selected ${selected.tool.toolName} (${selectorKind}, confidence ${selected.tool.selectionConfidence.toFixed(2)}) but its arguments are invalid: ${selected.errors}; the reviewer will refuse it.`
    : `Selected ${selected.tool.toolName} (${selectorKind}, confidence ${selected.tool.selectionConfidence.toFixed(2)}) with ${JSON.stringify(selected.tool.params ?? {})}.`;
  addReflection(packet, {
    step: STEP,
    summary: `${summary}${alternativesNote}${outsideNote}`,
    confidence: selected.tool.selectionConfidence,
  });
  return { next: "review" };
}

/** A choice as the packet's SelectedTool, validated against its candidate's schema. */
function toSelectedTool(choice: Choice, candidate: RoutingCandidate): { tool: SelectedTool; errors?: string } {
  const schema: JsonObject = candidate.tool?.inputSchema ?? {};
  const result = validateArguments(schema, choice.params);
  const confidence = clamp01(choice.confidence);
  if (result.ok) {
    return {
      tool: create(SelectedToolSchema, {
        toolName: choice.toolName,
        params: choice.params,
        selectionReasoning: choice.reasoning,
        selectionConfidence: confidence,
      }),
    };
  }
  const errors = describeErrors(result.errors);
  return {
    errors,
    tool: create(SelectedToolSchema, {
      toolName: choice.toolName,
      params: choice.params,
      selectionReasoning: `${choice.reasoning} Invalid arguments: ${errors}.`,
      selectionConfidence: Math.min(confidence, INVALID_ARGUMENTS_CAP),
    }),
  };
}

function skipNoCandidates(packet: Packet): StageOutcome {
  const routing = routingOf(packet);
  routing.selectedTool = undefined;
  routing.alternativeTools = [];
  routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
  addReflection(packet, {
    step: STEP,
    summary: "No candidate tools for this step, so no tool was selected; the packet completes without a tool call.",
  });
  finish(packet, Packet_State.COMPLETED, "no tool selected: the router offered no candidate tools");
  return { done: true };
}

