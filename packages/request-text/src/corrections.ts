/**
 * A turn that tells the assistant its last answer missed: "no, the other file", "wrong
 * tool", "that's not what I asked", "I meant the notes folder". Learning from use takes the
 * turn after a call as its confirmation unless it is such a correction.
 */
import { viewsOf } from "./text-views.js";

const CORRECTION =
  /^(?:no\b|nope\b|wrong\b|incorrect\b|not\s+(?:that|this|what|the)\b|that'?s\s+(?:not|wrong)\b|that\s+(?:is|was)\s+(?:not|wrong)\b|i\s+meant\b|i\s+said\b|actually\b|undo\b|stop\b)/;

/** Whether the turn opens by saying the last answer was wrong. */
export function isCorrection(turn: string): boolean {
  return CORRECTION.test(viewsOf(turn.trim()).masked.replace(/^[^\p{L}]+/u, ""));
}
