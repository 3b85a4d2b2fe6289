/**
 * Splits a multi-step request into the steps the reinjection loop works
 * through, one tool call each: on sequencing words ("…, then …", "after
 * that", "afterwards") and on numbered or bulleted lists. A plain "and" never
 * splits: "read a.md and b.md" is one action on two files.
 */
import { pathKindOf, viewsOf } from "@switchyard/request-text";

type Span = [start: number, end: number];

/** The steps of `text` in order, as written; [] for blank text. */
export function splitSteps(text: string): string[] {
  const { source, masked } = viewsOf(text);
  const items = listItems(masked) ?? [[0, masked.length] as Span];
  const steps: string[] = [];
  for (const [start, end] of items.flatMap((item) => sequence(masked, item))) {
    const step = tidy(source.slice(start, end));
    if (!/\w/.test(step)) continue;
    const previous = steps.at(-1);
    steps.push(previous === undefined ? step : borrowVerb(previous, step));
  }
  return steps;
}

/**
 * "read a.md, then b.md": a step that is only paths takes the words before
 * the previous step's first path ("read b.md"), so the router sees an action.
 */
function borrowVerb(previous: string, step: string): string {
  const words = step.split(/\s+/);
  if (!words.every((w) => w === "and" || pathKindOf(w) !== undefined)) return step;
  const previousWords = previous.split(/\s+/);
  const firstPath = previousWords.findIndex((w) => pathKindOf(w) !== undefined);
  return firstPath > 0 ? `${previousWords.slice(0, firstPath).join(" ")} ${step}` : step;
}

// A numbered item marker, "1." or "2)", at the start or after whitespace and followed by whitespace.
const NUMBER_MARKER = /(?<=^|\s)(\d{1,2})[.)](?=\s)/g;
// A bullet at the start of a line: "- ", "* ", "• ".
const BULLET_MARKER = /(?<=^|\n)[ \t]*[-*•][ \t]+/g;
// A lead-in that only announces the list ("Do the following:", "Steps:").
const LIST_LEAD = /:\s*$|\b(?:following|these|steps?)\b/;

/** The items of a numbered (1, 2, 3 … in order) or bulleted list of two or more, else undefined. */
function listItems(masked: string): Span[] | undefined {
  const markers: Span[] = [];
  for (const m of masked.matchAll(NUMBER_MARKER)) {
    // Only the next number in sequence counts, so "costs 2. then" inside item 1 is prose.
    if (Number(m[1]) === markers.length + 1) markers.push([m.index, m.index + m[0].length]);
  }
  if (markers.length < 2) {
    markers.length = 0;
    for (const m of masked.matchAll(BULLET_MARKER)) markers.push([m.index, m.index + m[0].length]);
  }
  if (markers.length < 2) return undefined;

  const items: Span[] = [];
  const lead = masked.slice(0, markers[0]![0]);
  if (/\w/.test(lead) && !LIST_LEAD.test(lead)) items.push([0, markers[0]![0]]);
  markers.forEach(([, contentStart], i) => items.push([contentStart, markers[i + 1]?.[0] ?? masked.length]));
  return items;
}

// The separators between steps. "then" may follow punctuation, "and" or a bare space
// ("read a.md then delete it"); the other sequencing words follow punctuation or "and",
// or, for "afterwards" only, stand bare in mid-sentence
// ("read a.md afterwards delete it"). "next" is not a sequence in "next to", "next week".
const SEPARATOR =
  /(?:[,;.!?]\s*|\s+)(?:and\s+)?(then)\b[\s,:]*|(?:[,;.!?]\s*|\s+and\s+)(?:after\s+that|afterwards|after\s+which|finally|lastly|next(?!\s+(?:to|week|time|day|month|year|one|step)\b)|once\s+(?:that(?:'s|\s+is)|it(?:'s|\s+is)|you(?:'re|\s+are))\s+done)\b[\s,:]*|\s+afterwards\b[\s,:]*/g;

// Words that make "then" an adverb of time, not a sequence: "back then", "since then", "now and then".
const TIME_THEN = /\b(?:back|since|by|until|till|even|only|now|just|right)\s*$/;
// A step that opens with a condition keeps its "then": "if a.md exists then delete it".
const CONDITION = /^\s*(?:if|when|whenever|once|in\s+case|assuming|provided)\b/;

/** Splits one span on sequencing words. */
function sequence(masked: string, [start, end]: Span): Span[] {
  const text = masked.slice(start, end);
  const spans: Span[] = [];
  let stepStart = 0;
  for (const m of text.matchAll(SEPARATOR)) {
    const after = m.index + m[0].length;
    // Nothing follows: "… and delete it afterwards" ends the step, it does not start one.
    if (!/\w/.test(text.slice(after))) continue;
    if (m[1] === "then") {
      const before = text.slice(stepStart, m.index);
      if (TIME_THEN.test(before) || CONDITION.test(before)) continue;
    }
    spans.push([start + stepStart, start + m.index]);
    stepStart = after;
  }
  spans.push([start + stepStart, end]);
  return spans;
}

/** Trims a step: whitespace, leading sequencing words ("First, …"), trailing separators and full stops. */
function tidy(step: string): string {
  return step
    .trim()
    // "First, read …", "And then …", "Finally: …"
    .replace(/^(?:(?:and|then|also|first(?:ly)?|next|finally|lastly|afterwards|after\s+that)\b[\s,:]*)+/i, "")
    // A trailing ",", ";", ":" or sentence-ending "." / "!"; a "?" stays, it says the step asks something.
    .replace(/[\s,;:.!]+$/, "")
    .trim();
}
