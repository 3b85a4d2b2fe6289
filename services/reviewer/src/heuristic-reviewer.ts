/**
 * The built-in reviewer: no model. Its confidence starts from the selection confidence;
 * a request that both changes and looks at things ("read a.txt and delete it") loses 0.1,
 * since one tool can answer only part of it. It approves when the code checks found nothing.
 */
import { clamp01 } from "@switchyard/packet";
import { requestVerbs } from "@switchyard/request-text";
import type { Review, ReviewRequest, Reviewer } from "./reviewer.js";

/** Confidence lost when the request mixes changing and looking verbs. */
const MIXED_REQUEST_PENALTY = 0.1;

export const heuristicReviewer: Reviewer = { kind: "heuristic", review: heuristicReview };

export function heuristicReview(request: ReviewRequest): Review {
  const { selected, findings } = request;
  let confidence = selected.selectionConfidence;
  const notes: string[] = [`selection confidence ${confidence.toFixed(2)}`];
  const verbs = requestVerbs(request.text);
  if (verbs.changing.length > 0 && verbs.looking.length > 0) {
    confidence -= MIXED_REQUEST_PENALTY;
    notes.push(`the request both changes (${verbs.changing.join(", ")}) and looks (${verbs.looking.join(", ")}), one tool answers part of it (-${MIXED_REQUEST_PENALTY})`);
  }
  // No verdict words here: the stage leads the packet's reasoning with the outcome, which may differ (a skip below the threshold).
  if (findings.length === 0) {
    notes.push("arguments complete and valid", "no contradiction with the request");
    return { approved: true, confidence: clamp01(confidence), reasoning: `${notes.join("; ")}.` };
  }
  notes.push(`the code checks found ${findings.length === 1 ? "a problem" : `${findings.length} problems`} with the call`);
  return { approved: false, confidence: clamp01(confidence), reasoning: `${notes.join("; ")}.` };
}

