/**
 * The values a request names, whatever tool it is for: quoted text, links, e-mail addresses,
 * dates, times, numbers, places ("in Seattle, WA", "from Boston to New York"), proper names
 * ("Balthazar", "American Civil War") and identifiers ("cascade-sandbox", "BRCA1"), each with
 * its position and the words in front of it. fill-required.ts matches them to the required
 * arguments the schema-specific fillers (extract-args.ts) left empty.
 */
import type { MessageScan } from "@switchyard/request-text";

export type ValueKind = "quote" | "url" | "email" | "date" | "time" | "number" | "place" | "name" | "identifier";

export interface FoundValue {
  kind: ValueKind;
  /** The value as the request writes it (a number's value for "number"). */
  value: string | number;
  start: number;
  end: number;
  /** Up to three lower-case words right before it, nearest last ("from", "the city of"). */
  before: string[];
  /** Up to two lower-case words right after it. */
  after: string[];
}

const MONTHS = "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";
const WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
const ORDINAL_DAY = "\\d{1,2}(?:st|nd|rd|th)?";

const PATTERNS: [ValueKind, RegExp][] = [
  // A link: a scheme, or "www.", up to the next space or closing bracket/quote.
  ["url", /\b(?:https?:\/\/|www\.)[^\s"'<>)\]]+/gi],
  // An e-mail address.
  ["email", /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g],
  // Dates: ISO "2023-04-20" / "2023.10.1", "04/23/2023", "April 23, 2023", "the 4th of March 2023", "March 1st".
  [
    "date",
    new RegExp(
      `\\b\\d{4}[-./]\\d{1,2}[-./]\\d{1,2}\\b|\\b\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?\\b|` +
        `\\b(?:${MONTHS})\\.?\\s+${ORDINAL_DAY}(?:,?\\s+\\d{4})?\\b|` +
        `\\b(?:the\\s+)?${ORDINAL_DAY}\\s+(?:of\\s+)?(?:${MONTHS})\\b(?:,?\\s+\\d{4})?|` +
        `\\b(?:today|tomorrow|tonight|yesterday|(?:this|next|coming|upcoming)\\s+(?:${WEEKDAYS}|week(?:end)?|month|year)|(?:on\\s+)?(?:${WEEKDAYS}))\\b`,
      "gi",
    ),
  ],
  // Times: "10:00", "10:00 AM", "3 PM", "8 in the evening", "noon".
  ["time", /\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?\b|\b\d{1,2}\s*[ap]\.?m\.?\b|\b\d{1,2}\s+(?:o'?clock|in\s+the\s+(?:morning|afternoon|evening))\b|\b(?:noon|midnight)\b/gi],
  // A season or a span of years: "2022-2023", "1800/1900".
  ["date", /\b\d{4}[-/]\d{2,4}\b/g],
  // An address or "City, ST" / "City, Country": an optional house number, capitalised words, a comma, a state code or capitalised words.
  ["place", /(?:\b\d{1,5}\s+)?\b\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,3},\s*(?:[A-Z]{2}\b|\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)?)/gu],
  // An address without a city: a house number and capitalised words ending in a street word ("123 Beijing Street").
  ["place", /\b\d{1,5}\s+(?:\p{Lu}[\p{L}.'-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl)\b\.?/gu],
  // Numbers: "5000", "$5,000.50", "-3", "4.22", "5%", and with a short unit glued on ("5C", "70kg").
  // Never the digits inside an identifier ("ef903ac-893-f00").
  // A number may open a compound ("2-bedroom").
  ["number", /(?<![\w.$-])[-+]?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?(?![\w.-])|(?<![\w.-])[-+]?\$?\d+(?:\.\d+)?%?(?![\w]|-\d)|(?<![\w.-])\d+(?:\.\d+)?(?=[A-Za-z]{1,3}\b)/g],
  // Identifiers: a word with an underscore, a digit or an inner dash/dot, not a plain number ("personal_data", "BRCA1",
  // "cascade-sandbox"), or a camelCase word ("columnCount").
  ["identifier", /(?<![\w.@/-])(?=[\w.-]*[A-Za-z])(?=[\w.-]*(?:_|\d|\w[-.]\w))[A-Za-z0-9][\w.-]*[A-Za-z0-9](?![\w@/-])|\b\p{Ll}+\p{Lu}[\p{L}\p{N}]*\b/gu],
  // Proper names: runs of capitalised words, allowing "of", "the", "de" inside ("Museum of Modern Art"); "and" separates two.
  ["name", /\b\p{Lu}[\p{L}\p{N}'’&.-]*(?:\s+(?:(?:of|the|de|del|la|le|von|van)\s+)?\p{Lu}[\p{L}\p{N}'’&.-]*)*/gu],
];

// Number words a request may spell out ("two adults").
const NUMBER_WORDS = new Map<string, number>([
  ["one", 1], ["two", 2], ["three", 3], ["four", 4], ["five", 5], ["six", 6], ["seven", 7], ["eight", 8], ["nine", 9], ["ten", 10],
  ["eleven", 11], ["twelve", 12], ["fifteen", 15], ["twenty", 20], ["thirty", 30], ["forty", 40], ["fifty", 50], ["hundred", 100],
  ["dozen", 12], ["single", 1], ["couple", 2], ["pair", 2],
]);
// A spelled-out number word.
const NUMBER_WORD = /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen|single|couple|pair)\b/gi;
// Multipliers after a number: "5 million", "10k".
const MULTIPLIER = /^\s*(k|thousand|million|billion)\b/i;
const MULTIPLIERS: Record<string, number> = { k: 1e3, thousand: 1e3, million: 1e6, billion: 1e9 };

// Capitalised words that are not names: pronouns, sentence openers, request verbs and fillers.
const NOT_NAMES = new Set([
  "i", "i'm", "i'd", "i've", "i'll", "a", "an", "the", "my", "our", "your", "we", "you", "he", "she", "it", "they", "this", "that",
  "these", "those", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was", "were", "do",
  "does", "did", "can", "could", "would", "will", "should", "shall", "may", "might", "please", "hi", "hello", "hey", "thanks",
  "thank", "ok", "okay", "yes", "no", "also", "and", "or", "but", "so", "then", "if", "for", "in", "on", "at", "to", "from",
  "with", "by", "of", "about", "get", "find", "search", "show", "list", "tell", "give", "make", "book", "reserve", "buy",
  "calculate", "compute", "check", "retrieve", "fetch", "look", "help", "let", "let's", "set", "create", "add", "delete",
  "remove", "update", "send", "play", "order", "use", "provide", "identify", "determine", "predict", "estimate", "convert",
  "generate", "plan", "suggest", "recommend", "what's", "who's", "where's", "it's", "there", "here", "now", "today",
  "tomorrow", "yesterday", "next", "last", "first", "second", "third", "finally", "user", "assistant", "question", "answer",
  "note", "example", "e.g", "i.e", "ps", "btw", "can't", "don't", "is there", "any", "some", "all", "each", "every",
]);
const MONTH_OR_DAY = new RegExp(`^(?:${MONTHS}|${WEEKDAYS})$`, "i");

// Lower-case words of a stretch of text, apostrophes kept inside.
const WORDS = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;

const cache = new WeakMap<MessageScan, FoundValue[]>();
/** Share of the request a quote may span and still be a value. */
const WHOLE_QUOTE = 0.6;
// What precedes a sentence's first word: nothing, or sentence punctuation and spaces.
const SENTENCE_START = /(?:^|[.!?:]\s*|\n\s*)$/;

/** Every value the request names, in order; where values overlap the more specific kind wins (see PATTERNS' order). */
export function findValues(scan: MessageScan): FoundValue[] {
  const cached = cache.get(scan);
  if (cached) return cached;
  const { text, unquoted } = scan;
  const taken: [number, number][] = [];
  const free = (start: number, end: number) => !taken.some(([s, e]) => start < e && end > s);
  const found: FoundValue[] = [];
  const push = (kind: ValueKind, value: string | number, start: number, end: number) => {
    taken.push([start, end]);
    found.push({ kind, value, start, end, before: wordsBefore(text, start), after: wordsAfter(text, end) });
  };

  // A quote around most of the request is the request quoted whole (as benchmarks and pasted prompts do), not a value.
  const quotes = scan.quotes.filter((q) => q.end - q.start < WHOLE_QUOTE * text.length);
  const searched = quotes.length === scan.quotes.length ? unquoted : blankOut(text, quotes);
  for (const q of quotes) push("quote", q.value, q.start, q.end);
  for (const [kind, pattern] of PATTERNS) {
    for (const m of searched.matchAll(pattern)) {
      let start = m.index;
      let raw = m[0];
      if (kind === "name") {
        // Drop leading words that are not names ("Find", "Can", "I"): a name starts at the first word that may be one.
        const words = raw.split(/\s+/);
        while (words.length > 0 && (NOT_NAMES.has(words[0]!.toLowerCase()) || MONTH_OR_DAY.test(words[0]!))) {
          const dropped = words.shift()!;
          start = text.indexOf(words[0] ?? "", start + dropped.length);
        }
        raw = words.join(" ").replace(/[.'’-]+$/, "");
        if (raw.length < 2 || start < 0) continue;
        // One capitalised word opening a sentence is usually just the sentence's first word ("Given …").
        if (words.length === 1 && SENTENCE_START.test(text.slice(Math.max(0, start - 3), start))) continue;
      }
      const end = start + raw.length;
      if (!free(start, end)) continue;
      push(kind, kind === "number" ? numberValue(raw, text.slice(end)) : raw.trim(), start, end);
    }
  }
  for (const m of searched.matchAll(NUMBER_WORD)) {
    if (free(m.index, m.index + m[0].length)) push("number", NUMBER_WORDS.get(m[0].toLowerCase())!, m.index, m.index + m[0].length);
  }
  found.sort((a, b) => a.start - b.start);
  cache.set(scan, found);
  return found;
}

/** `text` with each span replaced by spaces (same length). */
function blankOut(text: string, spans: readonly { start: number; end: number }[]): string {
  let out = text;
  for (const s of spans) out = out.slice(0, s.start) + " ".repeat(s.end - s.start) + out.slice(s.end);
  return out;
}

/** "$5,000" → 5000, "5%" → 5, "10k" → 10000 (a multiplier word after the number counts). */
function numberValue(raw: string, rest: string): number {
  const n = Number(raw.replace(/[$,%]/g, ""));
  const multiplier = MULTIPLIER.exec(rest)?.[1]?.toLowerCase();
  return multiplier ? n * MULTIPLIERS[multiplier]! : n;
}

function wordsBefore(text: string, at: number): string[] {
  return (text.slice(Math.max(0, at - 40), at).toLowerCase().match(WORDS) ?? []).slice(-3);
}

function wordsAfter(text: string, at: number): string[] {
  return (text.slice(at, at + 30).toLowerCase().match(WORDS) ?? []).slice(0, 2);
}
