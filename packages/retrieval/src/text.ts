import type { ToolDefinition } from "@switchyard/packet";
import { splitWords } from "@switchyard/request-text";

/**
 * Words that carry no routing signal: English function words, the politeness
 * and filler of chat requests ("could you please help me…"), and words every
 * tool description shares ("tool", "use"). Compared before stemming.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  // English function words
  "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
  "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
  "did", "do", "does", "doing", "down", "during", "each", "either", "etc", "even", "ever", "every",
  "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
  "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "much",
  "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
  "ourselves", "out", "over", "own", "same", "she", "so", "some", "such", "than", "that", "the", "their", "theirs",
  "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
  "up", "very", "via", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom",
  "whose", "why", "with", "within", "without", "you", "your", "yours", "yourself", "yourselves",
  // pointing back at something named before: "the other one", "another"
  "one", "ones", "another",
  // contractions once the apostrophe has split them ("don't" → "don", "t")
  "don", "doesn", "didn", "isn", "aren", "won", "ll", "re", "ve", "s", "t", "d", "m",
  // request filler
  "please", "pls", "kindly", "thanks", "thank", "hey", "can", "could", "would", "will", "shall", "should", "may",
  "might", "must", "want", "wanna", "need", "like", "let", "lets", "know", "help", "tell", "able", "possible",
  "something", "anything", "someone", "way", "using", "use", "used", "make",
  // every tool is one
  "tool", "tools", "plugin", "plugins",
]);

/** Words Porter's "-s" rule would mangle into another word ("news" → "new"). */
const STEM_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["news", "news"],
  ["always", "always"],
  ["series", "series"],
  ["species", "species"],
  ["perhaps", "perhaps"],
]);


/** Words → stems, without stopwords and one-letter words. The tokens of both the sparse and the dense side. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of splitWords(text)) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980),
// written from the paper's rules. Words with non-ASCII letters or digits are
// left alone: the rules are for English.

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  // "y" is a vowel after a consonant ("happy"), a consonant otherwise ("yes", "toy")
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in [C](VC)^m[V]. */
function measure(w: string): number {
  let m = 0;
  let i = 0;
  while (i < w.length && isConsonant(w, i)) i++;
  while (i < w.length) {
    while (i < w.length && !isConsonant(w, i)) i++;
    if (i >= w.length) break;
    while (i < w.length && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** consonant-vowel-consonant, the last not w, x or y: "hop", "fil" (then "-e" is restored: "filing" → "file"). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1];
  return (
    isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && last !== "w" && last !== "x" && last !== "y"
  );
}

/** Replaces the first suffix of `rules` that `w` ends with, if the rest satisfies `ok`; at most one rule applies. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], ok: (rest: string) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue;
    const rest = w.slice(0, w.length - suffix.length);
    return ok(rest) ? rest + replacement : w;
  }
  return w;
}

const STEP2: readonly (readonly [string, string])[] = (
  [
    ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["bli", "ble"],
    ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
    ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
    ["iviti", "ive"], ["biliti", "ble"], ["logi", "log"],
  ] as [string, string][]
).sort((a, b) => b[0].length - a[0].length); // the longest matching suffix decides

const STEP3: readonly (readonly [string, string])[] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];

const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti",
  "ous", "ive", "ize",
].sort((a, b) => b.length - a.length);

function step1ab(w: string): string {
  // 1a: plurals
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);

  // 1b: past tense and gerund
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
    return w;
  }
  let rest: string | undefined;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) rest = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) rest = w.slice(0, -3);
  if (rest === undefined) return w;
  if (rest.endsWith("at") || rest.endsWith("bl") || rest.endsWith("iz")) return rest + "e";
  if (endsDoubleConsonant(rest) && !/[lsz]$/.test(rest)) return rest.slice(0, -1); // "hopping" → "hop", not "fall" → "fal"
  if (measure(rest) === 1 && endsCvc(rest)) return rest + "e";
  return rest;
}

/** The Porter stem of one lowercase word: "reading" → "read", "files" → "file", "directories"/"directory" → "directori". */
export function stem(word: string): string {
  const exception = STEM_EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;
  // only plain ASCII words of three letters or more; "is", "as", "ios", numbers and non-English words stay whole
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;

  let w = step1ab(word);
  // 1c: "happy" → "happi", so that it meets "happiness"
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = w.slice(0, -1) + "i";
  w = replaceSuffix(w, STEP2, (rest) => measure(rest) > 0);
  w = replaceSuffix(w, STEP3, (rest) => measure(rest) > 0);
  // 4: derivational suffixes of longer stems ("adjustment" → "adjust")
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const rest = w.slice(0, -suffix.length);
    const ok = measure(rest) > 1 && (suffix !== "ion" || rest.endsWith("s") || rest.endsWith("t"));
    if (ok) w = rest;
    break;
  }
  // 5: a final "e" goes ("create" → "creat") unless the stem is short and cvc ("file", "write")
  if (w.endsWith("e")) {
    const rest = w.slice(0, -1);
    const m = measure(rest);
    if (m > 1 || (m === 1 && !endsCvc(rest))) w = rest;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------------------
// What is indexed for a tool.

/** The parts of a tool that describe it, as plain text, one entry per field. */
export interface ToolFields {
  /** The catalog name split into words: "filesystem read text file". */
  name: string;
  description: string;
  /** Parameter names, titles, descriptions and string enum values, nested ones included. */
  parameters: string;
  examples: string[];
}

export function toolFields(tool: ToolDefinition): ToolFields {
  const parts: string[] = [];
  collectSchemaText(tool.inputSchema, parts, 0);
  return {
    name: splitWords(tool.name).join(" "),
    description: tool.description,
    parameters: parts.join(" "),
    examples: tool.examples.filter((e) => e.trim().length > 0),
  };
}

/** Everything indexed for a tool as one text: name words, description, parameters, examples. */
export function toolText(tool: ToolDefinition): string {
  const f = toolFields(tool);
  return [f.name, f.description, f.parameters, ...f.examples].filter((s) => s.length > 0).join("\n");
}

const MAX_SCHEMA_DEPTH = 4;

function collectSchemaText(schema: unknown, out: string[], depth: number): void {
  if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH) return;
  const properties = schema["properties"];
  if (isObject(properties)) {
    for (const [key, prop] of Object.entries(properties)) {
      out.push(splitWords(key).join(" "));
      if (!isObject(prop)) continue;
      for (const field of ["title", "description"]) {
        const text = prop[field];
        if (typeof text === "string") out.push(text);
      }
      const values = prop["enum"];
      if (Array.isArray(values)) for (const v of values) if (typeof v === "string") out.push(v);
      collectSchemaText(prop, out, depth + 1);
    }
  }
  // array items and combinators hold their own properties
  for (const nested of [schema["items"], ...asArray(schema["anyOf"]), ...asArray(schema["oneOf"]), ...asArray(schema["allOf"])]) {
    collectSchemaText(nested, out, depth + 1);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
