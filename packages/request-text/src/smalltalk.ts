/**
 * Small talk: the openers that carry no request ("thanks", "hi", "ok"). The
 * intent stage names them as its rule for "no tool"; the router's query skips
 * an earlier turn that is only small talk when it looks for what "it" is.
 */
import { findPath, viewsOf } from "./text-views.js";
import { verbActions } from "./verbs.js";
import { lowerWords } from "./words.js";

// Openers that carry no request. Longest alternatives first inside each group.
const SMALLTALK: [string, RegExp][] = [
  ["thanks", /^(?:thank\s+(?:you|u)(?:\s+(?:so|very)\s+much)?|thanks?(?:\s+a\s+lot)?|thx|tysm|ty|cheers|many\s+thanks|much\s+appreciated|appreciate\s+(?:it|that|you))\b/],
  ["greeting", /^(?:good\s+(?:morning|afternoon|evening|day)|hello|hiya|hi|hey|howdy|greetings|yo|sup)\b/],
  ["farewell", /^(?:good\s*night|goodbye|bye|see\s+(?:you|ya)(?:\s+later)?|cya|take\s+care|later)\b/],
  ["chitchat", /^(?:how\s+are\s+you(?:\s+doing)?|how(?:'s|\s+is)\s+it\s+going|what(?:'s|\s+is)\s+up|whats\s+up|who\s+are\s+you|what(?:'s|\s+is)\s+your\s+name|nice\s+to\s+meet\s+you|how\s+have\s+you\s+been|tell\s+me\s+a\s+joke)\b/],
  ["closing", /^(?:that(?:'s|\s+is|\s+was|'ll\s+be|\s+will\s+be)\s+(?:all|it|everything|enough)|nothing\s+(?:else|more)|no\s+more|i(?:'m|\s+am)\s+(?:done|good|all\s+set|set)|we(?:'re|\s+are)\s+(?:done|good|all\s+set)|all\s+(?:done|set|good)|have\s+a\s+(?:good|nice|great|lovely)\s+(?:one|day|night|evening|weekend))\b/],
  ["ack", /^(?:ok(?:ay)?|sure|got\s+it|cool|great|nice|perfect|awesome|alright|all\s+right|fine|yes|yeah|yep|yup|no|nope|nah|understood|makes\s+sense|sounds\s+good|i\s+see|fair\s+enough|lol|haha|wow|oh|hmm+|k)\b/],
];

/** Small talk that ends a conversation: whatever follows it that asks for nothing is part of the goodbye. */
const CLOSINGS: ReadonlySet<string> = new Set(["thanks", "farewell", "closing"]);

/**
 * Peels small-talk openers off the front of a lower-cased (masked) text; `kind`
 * is the first one found ("thanks", "greeting", …), `rest` what follows, and
 * `closing` whether one of them ends the conversation (thanks, a farewell, "that's all").
 */
export function stripSmalltalk(masked: string): { kind: string | undefined; rest: string; closing: boolean } {
  let rest = masked.trim();
  let kind: string | undefined;
  let closing = false;
  for (let peeled = true; peeled; ) {
    peeled = false;
    for (const [name, pattern] of SMALLTALK) {
      const m = pattern.exec(rest);
      if (!m) continue;
      kind ??= name;
      closing ||= CLOSINGS.has(name);
      // The opener plus the punctuation after it ("thanks, …", "hi! …").
      rest = rest.slice(m[0].length).replace(/^[\s,.!?;:-]+/, "");
      peeled = true;
      break;
    }
  }
  return { kind, rest, closing };
}

/**
 * True when a turn opens with small talk and asks for nothing after it: no path
 * or link, no action verb. "thanks, that was helpful!" is small talk; "thanks!
 * now delete notes/old.md" is a request.
 */
export function isSmalltalk(text: string): boolean {
  const { kind, rest } = stripSmalltalk(viewsOf(text).masked);
  if (kind === undefined) return false;
  return !findPath(rest) && !lowerWords(rest).some((word) => verbActions(word).length > 0);
}
