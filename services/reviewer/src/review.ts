/**
 * The review stage: decides whether the selected tool call may go on to the executor, and how.
 *
 * In order, each step explained in a reflection-log entry (step "review"):
 * 1. No selection, a selected tool that is not among the routing candidates, or a call this
 *    packet already made (same tool, same arguments: it would loop, seed 002's repetition
 *    detection): rejected, never executed (SKIPPED, packet COMPLETED), whatever
 *    LOW_CONFIDENCE_ACTION says.
 * 2. Code checks (findings): arguments that fail the tool's inputSchema (missing, of the wrong
 *    type, out of range); the request's verb contradicting the tool (asks to delete/write/create/
 *    move/run but the tool only reads, as its name says, or asks to read/show/list but the tool
 *    writes). Any finding means not approved.
 * 3. The Reviewer (heuristic or model) gives { approved, confidence, reasoning }; not approved,
 *    by it or by a finding, caps confidence at 0.5 (seed 000 §4.1).
 * 4. Not approved, or confidence below REVIEW_CONFIDENCE_THRESHOLD: LOW_CONFIDENCE_ACTION "skip"
 *    (SKIPPED, COMPLETED) or "ask" (AWAITING_USER, the question in stateReason). A call that is not
 *    approved never runs, even if the threshold is set at or below 0.5.
 * 5. Policy (policy.ts): execute → APPROVED, EXECUTING; dry-run → APPROVED with toolRouting.dryRun,
 *    EXECUTING (the executor describes the call without making it); await-approval → AWAITING_APPROVAL,
 *    the approval bound to the call's hash and valid for APPROVAL_TTL_MS.
 * A preview (PacketHeader.preview, a request's `dryRun`) goes through the same steps, but its
 * outcome is only said ("dry run: a preview; would run …", "would ask for approval before running …",
 * "would skip: confidence 0.52 < 0.70 …"): a call that would go on goes to the executor as a dry
 * run, any other ends here; nothing is called, held for approval or learned.
 *
 * toolRouting.reviewReasoning starts with the outcome and why ("approved: …", "dry run: …",
 * "awaiting approval: …", "skipped: …", "refused: …"), then the review it rests on; a packet the
 * stage ends gets the same outcome as its stateReason (docs/packet-outcomes.md).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  addFallback,
  addReflection,
  clamp01,
  finish,
  ownToolName,
  Packet_State,
  repeatedCall,
  requestApproval,
  routingOf,
  ToolDefinition_SideEffect,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { Packet, SelectedTool, StageOutcome, ToolDefinition } from "@switchyard/packet";
import { changesThings, requestTexts, requestVerbs, toolActions } from "@switchyard/request-text";
import { fallbackOf } from "@switchyard/telemetry";
import { checkArguments } from "./check-args.js";
import type { Config } from "./config.js";
import { heuristicReviewer } from "./heuristic-reviewer.js";
import { decidePolicy, effectiveSideEffect } from "./policy.js";
import type { Finding, Review, ReviewRequest, Reviewer } from "./reviewer.js";

const STEP = "review";
/** Seed 000 review_selection: a review that does not approve is worth at most this. */
const NOT_APPROVED_CAP = 0.5;

export interface ReviewStageDeps {
  config: Config;
  /** Who reviews (chooseReviewer: the model's, or the heuristic); absent: the built-in heuristic. */
  reviewer?: Reviewer;
}

/** The review stage; main.ts hands it every packet on `switchyard.packets.review`. */
export async function reviewStage(packet: Packet, deps: ReviewStageDeps): Promise<StageOutcome> {
  const { config, reviewer = heuristicReviewer } = deps;
  const prepared = prepareReview(packet);
  if ("rejected" in prepared) return reject(packet, prepared.rejected);
  const review = await reviewer.review(prepared);
  if (review.fallback) {
    addFallback(packet, fallbackOf(STEP, review.fallback, `the built-in reviewer scored ${prepared.selected.toolName} ${clamp01(review.confidence).toFixed(2)}`));
  }
  return applyReview(packet, prepared, review, config, review.answeredBy ?? reviewer.kind);
}

/**
 * What the reviewer is asked, with the code checks already run; or why there is nothing to
 * review (no selection, or a tool outside the candidates).
 */
export function prepareReview(packet: Packet): ReviewRequest | { rejected: string } {
  const routing = routingOf(packet);
  const selected = routing.selectedTool;
  if (!selected || !selected.toolName) return { rejected: "No tool was selected, so there is nothing to review or run." };
  const tool = routing.candidates.find((c) => c.tool?.name === selected.toolName)?.tool;
  if (!tool) {
    const names = routing.candidates.map((c) => c.tool?.name ?? "").filter(Boolean);
    return {
      rejected: `${selected.toolName} is not among the routing candidates (${names.join(", ") || "none"}), so it is rejected and never executed.`,
    };
  }
  const repeated = repeatedCall(packet);
  if (repeated) {
    return {
      rejected: `${selected.toolName} with these arguments was already called at hop ${repeated.hop} of this packet; calling it again would loop, so the packet stops here (repetition detection).`,
    };
  }
  const text = requestText(packet);
  // A tightened class is no finding: the call may go on, but policy treats it by its name's stricter class.
  const { sideEffect } = effectiveSideEffect(tool);
  const findings = [...argumentFindings(tool, selected), ...contradictionFindings(text, tool, sideEffect)];
  return { text, selected, tool, sideEffect, findings };
}

/** Applies a review to the packet under the stage's rules (see the module comment). */
export function applyReview(packet: Packet, request: ReviewRequest, review: Review, config: Config, reviewerKind: string): StageOutcome {
  const routing = routingOf(packet);
  const { selected, findings } = request;
  const toolName = selected.toolName;

  const approved = review.approved && findings.length === 0;
  const given = clamp01(review.confidence);
  const confidence = approved ? given : Math.min(given, NOT_APPROVED_CAP);
  const findingsText = findings.map((f) => f.detail).join(" ");
  // The findings themselves lead the reasoning (the verdict below); the review's own words follow.
  const overruled = review.approved && findings.length > 0 ? " Overruled by the code checks." : "";
  const tightenedNote =
    request.tool.sideEffect !== request.sideEffect
      ? ` The catalog marks ${toolName} ${sideEffectName(request.tool.sideEffect)}, but its name says it ${request.sideEffect === ToolDefinition_SideEffect.EXECUTE ? "runs" : "changes"} things, so policy treats it as ${sideEffectName(request.sideEffect)}.`
      : "";
  const assessment = `${review.reasoning}${overruled}${tightenedNote}`.trim();
  routing.reviewConfidence = confidence;
  routing.dryRun = false;

  const threshold = config.REVIEW_CONFIDENCE_THRESHOLD;
  const at = `confidence ${confidence.toFixed(2)}, threshold ${threshold.toFixed(2)}, ${reviewerKind} review`;
  const preview = isPreview(packet);
  const previewOf = (would: string, goesOn: boolean) => previewEnd(packet, { would, assessment, goesOn, confidence, at });

  if (!approved || confidence < threshold) {
    const why = !approved
      ? `not approved: ${findings.length > 0 ? findingsText : review.reasoning}`
      : `confidence ${confidence.toFixed(2)} is below the threshold ${threshold.toFixed(2)}`;
    if (config.LOW_CONFIDENCE_ACTION === "ask") {
      const question = questionFor(request, approved, confidence);
      if (preview) return previewOf(`ask the user instead of running ${toolName}, ${why}: ${question}`, false);
      routing.executionStatus = ToolRoutingState_ExecutionStatus.PENDING;
      routing.reviewReasoning = withAssessment(`asked the user instead of running ${toolName}, ${why}`, assessment);
      addReflection(packet, { step: STEP, summary: `Asked the user instead of running ${toolName}, ${why} (${at}).`, confidence });
      finish(packet, Packet_State.AWAITING_USER, question);
      return { done: true };
    }
    // A model reviewer scores the call itself; the heuristic passes the selection's confidence on, so a selection model helps too.
    const noModel = config.REVIEWER_MODEL
      ? ""
      : "; the review model is not configured, so the selection's confidence decides; set LLM_BASE_URL, SELECTOR_MODEL and REVIEWER_MODEL to select and review with a model";
    const [outcome, because] = !approved
      ? ["refuse", findings.length > 0 ? findingsText : `the review did not approve ${toolName}`]
      : ["skip", `confidence ${confidence.toFixed(2)} < ${threshold.toFixed(2)} for ${toolName}${noModel}`];
    if (preview) return previewOf(`${outcome}: ${because}`, false);
    const verdict = `${outcome === "refuse" ? "refused" : "skipped"}: ${because}`;
    routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
    routing.reviewReasoning = withAssessment(verdict, assessment);
    addReflection(packet, { step: STEP, summary: `Skipped ${toolName}, ${why} (${at}).`, confidence });
    finish(packet, Packet_State.COMPLETED, verdict);
    return { done: true };
  }

  const decision = decidePolicy(request.sideEffect, toolName, config);
  if (preview) {
    const would = { execute: "run", "dry-run": "only dry-run", "await-approval": "ask for approval before running" }[decision.action];
    return previewOf(`${would} ${toolName}: ${decision.reason}${tightenedNote}`, true);
  }
  switch (decision.action) {
    case "execute":
      routing.executionStatus = ToolRoutingState_ExecutionStatus.APPROVED;
      routing.reviewReasoning = withAssessment(`approved: ${decision.reason}`, assessment);
      packet.state = Packet_State.EXECUTING;
      addReflection(packet, { step: STEP, summary: `Approved ${toolName} (${at}). ${decision.reason}${tightenedNote}`, confidence });
      return { next: "execute" };
    case "dry-run":
      routing.executionStatus = ToolRoutingState_ExecutionStatus.APPROVED;
      routing.dryRun = true;
      // The executor ends a dry run with this reasoning as the packet's reason.
      routing.reviewReasoning = withAssessment(`dry run: ${decision.reason}`, assessment);
      packet.state = Packet_State.EXECUTING;
      addReflection(packet, { step: STEP, summary: `Approved ${toolName} as a dry run (${at}). ${decision.reason}${tightenedNote}`, confidence });
      return { next: "execute" };
    case "await-approval":
      routing.executionStatus = ToolRoutingState_ExecutionStatus.PENDING;
      routing.reviewReasoning = withAssessment(`awaiting approval: ${decision.reason}`, assessment);
      requestApproval(packet, config.APPROVAL_TTL_MS);
      addReflection(packet, { step: STEP, summary: `${toolName} waits for the user's approval (${at}). ${decision.reason}${tightenedNote}`, confidence });
      finish(packet, Packet_State.AWAITING_APPROVAL, `Approve ${toolName} with ${JSON.stringify(selected.params ?? {})}? ${decision.reason} The approval is for this exact call (callHash ${routing.approval!.callHash}).`);
      return { done: true };
  }
}

/** The current step, else the intent's query, else the original prompt (as the selector reads it). */
export function requestText(packet: Packet): string {
  return requestTexts(packet)[0] ?? "";
}

function reject(packet: Packet, reason: string): StageOutcome {
  const routing = routingOf(packet);
  routing.reviewConfidence = 0;
  if (isPreview(packet)) return previewEnd(packet, { would: `refuse: ${reason}`, assessment: "", goesOn: false, confidence: 0 });
  routing.reviewReasoning = `refused: ${reason}`;
  routing.dryRun = false;
  routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
  addReflection(packet, { step: STEP, summary: `Rejected: ${reason}`, confidence: 0 });
  finish(packet, Packet_State.COMPLETED, routing.reviewReasoning);
  return { done: true };
}

/** Whether the request asked for a preview (PacketHeader.preview). */
function isPreview(packet: Packet): boolean {
  return packet.header?.preview === true;
}

/**
 * A preview's review (PacketHeader.preview): what would have happened, said after "dry run: a preview; would …";
 * nothing is called or held for approval. A call that would have gone on goes to the executor as a dry run, which
 * describes it and ends the packet with this reasoning; one that would not ends here. Either way `dryRun` is set,
 * so nothing is learned from it.
 */
function previewEnd(packet: Packet, outcome: { would: string; assessment: string; goesOn: boolean; confidence: number; at?: string }): StageOutcome {
  const routing = routingOf(packet);
  const { would, goesOn, confidence } = outcome;
  routing.dryRun = true;
  routing.reviewReasoning = withAssessment(`dry run: a preview; would ${would}`, outcome.assessment);
  addReflection(packet, { step: STEP, summary: `Preview, nothing runs: would ${would}${outcome.at ? ` (${outcome.at})` : ""}.`, confidence });
  if (goesOn) {
    routing.executionStatus = ToolRoutingState_ExecutionStatus.APPROVED;
    packet.state = Packet_State.EXECUTING;
    return { next: "execute" };
  }
  routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
  finish(packet, Packet_State.COMPLETED, routing.reviewReasoning);
  return { done: true };
}

/** The review's reasoning: the outcome first (a call that does not run never reads as approved), then the review it rests on. */
function withAssessment(verdict: string, assessment: string): string {
  if (!assessment) return verdict;
  return `${verdict}${/[.?!]$/.test(verdict) ? "" : "."} Review: ${assessment}`;
}

function argumentFindings(tool: ToolDefinition, selected: SelectedTool): Finding[] {
  const schema: JsonObject = tool.inputSchema ?? {};
  const problems = checkArguments(schema, selected.params ?? {});
  if (problems.length === 0) return [];
  return [
    {
      kind: "arguments",
      detail: `The arguments for ${selected.toolName} are not usable: ${problems.map((p) => `${p.field} ${p.message}`).join("; ")}.`,
      // "(arguments)" is the whole call (an unusable schema), not a field the user could name.
      fields: problems.map((p) => p.field).filter((field) => field !== "(arguments)"),
    },
  ];
}

/**
 * The request's verbs against what the tool does. "Only reads" needs the tool's own name to
 * say so (read_text_file, get_weather): READ is also what a catalog that never classified its
 * tools sends (the proto's zero value), and "HeyGen" or "TicTacToe" say nothing either way.
 */
function contradictionFindings(text: string, tool: ToolDefinition, sideEffect: ToolDefinition_SideEffect): Finding[] {
  const toolName = tool.name;
  const { changing, looking } = requestVerbs(text);
  const namedActions = [...toolActions(ownToolName(tool))];
  const readsByName = namedActions.length > 0 && !namedActions.some(changesThings);
  if (changing.length > 0 && looking.length === 0 && sideEffect === ToolDefinition_SideEffect.READ && readsByName) {
    return [{ kind: "contradiction", detail: `The request asks to ${unique(changing).join("/")}, but ${toolName} only reads.` }];
  }
  if (looking.length > 0 && changing.length === 0 && sideEffect === ToolDefinition_SideEffect.WRITE) {
    return [{ kind: "contradiction", detail: `The request only asks to ${unique(looking).join("/")}, but ${toolName} writes.` }];
  }
  return [];
}

/** The question for the user when LOW_CONFIDENCE_ACTION is "ask". */
function questionFor(request: ReviewRequest, approved: boolean, confidence: number): string {
  const { selected, findings } = request;
  const missing = findings.find((f) => f.kind === "arguments")?.fields ?? [];
  if (missing.length > 0) {
    return `Which ${missing.join(" and ")} should I use for ${selected.toolName}? ${findings.map((f) => f.detail).join(" ")}`;
  }
  const contradiction = findings.find((f) => f.kind === "contradiction");
  if (contradiction) {
    return `${contradiction.detail} Which tool should I use instead, or should I do something else?`;
  }
  const params = JSON.stringify(selected.params ?? {});
  return approved
    ? `Should I run ${selected.toolName} with ${params}? I am not sure it is what you want (confidence ${confidence.toFixed(2)}).`
    : `Should I run ${selected.toolName} with ${params}? The review did not approve it (confidence ${confidence.toFixed(2)}).`;
}

function sideEffectName(sideEffect: ToolDefinition_SideEffect): string {
  return ToolDefinition_SideEffect[sideEffect] ?? String(sideEffect);
}

function unique(words: string[]): string[] {
  return [...new Set(words)];
}

