/**
 * What the router searches with. Usually the step alone; but "turn it off"
 * names no device, so a short step that points back at something comes with
 * the latest earlier user turn(s) as its context (seed 001, "Handling
 * Multi-turn Context"), which the index weighs less than the step
 * (`SearchOptions.context`). The intent stage builds the pipeline's query with
 * it, the router a route-only request's, so the same conversation searches the same.
 */
import { Turn_Role } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { isSmalltalk } from "./smalltalk.js";
import { findPath, viewsOf, wordCount } from "./text-views.js";

export interface QueryOptions {
  /**
   * How many user turns the query may span, the step included: 2 adds the one
   * latest earlier user turn, 1 never adds context.
   * @default 2
   */
  maxTurns?: number;
}

/** Longer steps say what they mean; only short ones lean on the turns before. */
const MAX_ANAPHORIC_WORDS = 8;

// Words that point back at something said before: "delete it", "open that file again",
// "the other one", "do the same". "is it", "it is", "it's" are dummy subjects ("what time is it"),
// and "this"/"these" mostly point forward, so neither counts.
const BACK_REFERENCE =
  /\b(?:it|them|those|that)\b(?<!\bis\s+it)(?!\s+(?:is|was)\b)(?!')|\b(?:again|same|previous|other\s+one|last\s+one|the\s+rest|retry|undo)\b|\bgo\s+ahead\b/;

// Words that ask for something other than what was named before: "the other one", "another file", "the next one".
const ANOTHER_OBJECT = /\b(?:other\s+(?:one|ones|file|files)|another|next\s+one|the\s+rest|not\s+that\s+one)\b/;

/**
 * Whether a step points back at earlier turns for an object other than the one they named
 * ("and the other one?"): their values are then not its values.
 */
export function asksForAnother(step: string): boolean {
  return shortStepMatching(step, ANOTHER_OBJECT);
}

/** Whether a step is short and points back at earlier turns for its object. */
export function isAnaphoric(step: string): boolean {
  return shortStepMatching(step, BACK_REFERENCE);
}

/** A step of at most MAX_ANAPHORIC_WORDS words, naming no path or link of its own, whose words match `pattern`. */
function shortStepMatching(step: string, pattern: RegExp): boolean {
  const { masked } = viewsOf(step.trim());
  if (masked === "" || wordCount(masked) > MAX_ANAPHORIC_WORDS) return false;
  // A step that names its own path or link needs no context.
  if (findPath(step)) return false;
  return pattern.test(masked);
}

/** The router's query: the step's own words, and the earlier turns it points back at. */
export interface RouterQuery {
  /** The step, trimmed. */
  text: string;
  /** Earlier user turns the step points back at, oldest first; empty when it stands alone. */
  context: string[];
}

/**
 * The router's query for `step`. `history` holds the earlier turns, oldest
 * first; for a later step of a multi-step request the caller appends the
 * earlier steps as user turns, so "delete it" finds what step 1 read.
 */
export function buildQuery(step: string, history: readonly Turn[], options: QueryOptions = {}): RouterQuery {
  const text = step.trim();
  const maxTurns = options.maxTurns ?? 2;
  if (maxTurns < 2 || !isAnaphoric(text)) return { text, context: [] };
  return { text, context: earlierUserTurns(history, text, maxTurns - 1) };
}

/** Up to `limit` latest user turns before `step`, oldest first, skipping small talk and repeats of the step. */
function earlierUserTurns(history: readonly Turn[], step: string, limit: number): string[] {
  const picked: string[] = [];
  for (let i = history.length - 1; i >= 0 && picked.length < limit; i--) {
    const turn = history[i]!;
    const content = turn.content.trim();
    if (turn.role !== Turn_Role.USER || content === "" || content === step) continue;
    // "thanks" between the request and "turn it off" says nothing about what "it" is.
    if (isSmalltalk(content)) continue;
    picked.unshift(content);
  }
  return picked;
}
