/**
 * Reads a request once into the pieces argument extraction works with: quoted strings,
 * path-like tokens, glob patterns, file extensions and numbers, each with its position
 * and the word in front of it. Nothing here knows about tools or schemas.
 */

export interface Span {
  /** The text, without surrounding quotes or punctuation. */
  value: string;
  /** Offsets into the request text (for quotes: including the quote marks). */
  start: number;
  end: number;
  /** The nearest word before the span, lower-cased, skipping articles and "file"/"folder" (see FILLER_WORDS). */
  before: string;
}

export interface Quote extends Span {
  mark: '"' | "'" | "`";
}

export interface PathRef extends Span {
  /** Strong: has a slash or a file extension. Weak: only the words around it suggest a path ("in 'docs'", "the notes folder"). */
  strong: boolean;
  /** The quote it came from, when it was quoted. */
  quote?: Quote;
}

export interface NumberRef extends Span {
  number: number;
}

export interface MessageScan {
  text: string;
  /** The text with quoted spans blanked out (same length), for searches that must not look inside quotes. */
  unquoted: string;
  quotes: Quote[];
  /** Path-like tokens and quotes, strong and weak, in order of appearance. */
  paths: PathRef[];
  /** Glob-like tokens outside quotes ("*.md", "**\/*.ts"). */
  globs: Span[];
  /** Bare extensions outside quotes (".md"), as in "find all .md files". */
  extensions: Span[];
  /** Standalone numbers outside quotes and paths, including small number words ("ten"). */
  numbers: NumberRef[];
}

// Each quote style has its own pattern; `g` so every occurrence is found.
const QUOTE_PATTERNS: { mark: Quote["mark"]; pattern: RegExp }[] = [
  // "…": anything up to the next straight double quote.
  { mark: '"', pattern: /"([^"\n]+)"/g },
  // “…”: typographic double quotes.
  { mark: '"', pattern: /“([^”\n]+)”/g },
  // `…`: backticks, as people quote commands and code.
  { mark: "`", pattern: /`([^`\n]+)`/g },
  // '…': only when the opening quote starts a word and the closing one ends it, so the
  // apostrophes in "don't" or "what's" never open or close a quote.
  { mark: "'", pattern: /(?<=^|[\s([{:=,])'([^'\n]+?)'(?=$|[\s)\]},.;:!?])/g },
  // ‘…’: typographic single quotes, with the same word-boundary rule as '…'.
  { mark: "'", pattern: /(?<=^|[\s([{:=,])‘([^’\n]+?)’(?=$|[\s)\]},.;:!?])/g },
];

/** Words skipped when looking for the word in front of a span: "to the file notes.md" has "to" before notes.md. */
const FILLER_WORDS = new Set(["the", "a", "an", "my", "our", "your", "this", "that", "new", "file", "files", "folder", "directory", "dir"]);

/** Words in front of a quote that make it a path: "in 'docs'", "to 'out'", "the file 'todo'". */
const PATH_CUES = new Set(["in", "into", "to", "from", "under", "inside", "at", "as", "file", "folder", "directory", "dir"]);

/** Prepositions that name a place when a bare word ends the request: "search for TODO in notes". */
const PLACE_PREPOSITIONS = new Set(["in", "under", "inside", "within"]);

/** Slash-words that are prose, not paths. */
const SLASH_PROSE = new Set(["and/or", "either/or", "w/", "w/o", "n/a", "i/o", "yes/no", "true/false", "on/off", "read/write", "input/output", "he/she", "his/her"]);

/** Dotted words that look like file names but are prose or product names. */
const DOTTED_PROSE = new Set(["e.g", "i.e", "a.m", "p.m", "vs", "etc", "node.js", "next.js", "vue.js", "nuxt.js", "three.js", "d3.js", "socket.io"]);

/** Words after "file"/"folder" or before "folder"/"directory" that are not names: "the current directory". */
const NOT_A_NAME = new Set([
  "the", "a", "an", "my", "our", "your", "this", "that", "these", "those", "its", "current", "same", "following",
  "new", "whole", "entire", "contents", "content", "and", "or", "of", "in", "to", "from", "for", "with", "please",
  "is", "it", "there", "here", "called", "named", "list", "show", "read", "open",
]);

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, fifty: 50, hundred: 100,
};

// A scheme and "://": URLs are not file paths.
const URL_TOKEN = /^[a-z][a-z0-9+.-]*:\/\//i;
// Digits and slashes only (dates such as 12/05/2024, fractions): not paths.
const DATE_LIKE = /^[\d/]+$/;
// A file name with an extension: a name of word characters, dots, dashes or "~", then a dot and a
// 1–8 character extension that starts with a letter ("todo.md", "a.tar.gz", "~/.bashrc" is caught by the slash rule).
const FILE_WITH_EXTENSION = /^[\w~.-]*\w\.[A-Za-z][A-Za-z0-9_]{0,7}$/;
// The same inside quotes, where names may contain spaces ("my notes.txt").
const QUOTED_FILE_WITH_EXTENSION = /^[\w~. -]*\w\.[A-Za-z][A-Za-z0-9_]{0,7}$/;
// A bare extension such as ".md" or ".json".
const BARE_EXTENSION = /^\.[A-Za-z][A-Za-z0-9]{0,7}$/;
// An integer or decimal, optionally signed.
const NUMERIC = /^[-+]?\d+(?:\.\d+)?$/;
// Brackets and quote marks that may open a token: "(see notes/a.md)".
const LEADING_PUNCTUATION = /^[([{<"'“‘]+/;
// Sentence punctuation and closing brackets that may end a token: "read notes/todo.md."
const TRAILING_PUNCTUATION = /[)\]}>.,;:!?"'”’]+$/;
// Only spaces between two words.
const ONLY_SPACES = /^\s+$/;
// Nothing but spaces and sentence punctuation: the end of the request.
const ONLY_PUNCTUATION = /^[\s.!?]*$/;
// A bare name: letters, digits, dots, dashes, underscores ("notes", "src", "v2.1-drafts").
const PLAIN_NAME = /^[\w.-]+$/;
// A run of non-space characters: one raw token.
const RAW_TOKEN = /\S+/g;
// Any whitespace: a "?" in a phrase is a question, in a single word a wildcard.
const WHITESPACE = /\s/;
// A word (letters, digits, underscore, apostrophe), for walking backwards to the previous word.
const WORD = /[\w']+/g;

/** True when a token outside quotes looks like a path: a slash, or a file name with an extension. */
export function isPathToken(token: string): boolean {
  if (token.length === 0 || URL_TOKEN.test(token) || DATE_LIKE.test(token)) return false;
  const lower = token.toLowerCase();
  if (token.includes("/") || token.includes("\\")) return !SLASH_PROSE.has(lower);
  return FILE_WITH_EXTENSION.test(token) && !DOTTED_PROSE.has(lower);
}

/** True when a token holds glob wildcards ("*.md"). */
export function isGlob(token: string): boolean {
  return token.includes("*") || (token.includes("?") && !WHITESPACE.test(token));
}

/** Splits a request into quotes, paths, globs, extensions and numbers. */
export function scanMessage(text: string): MessageScan {
  const quotes = findQuotes(text);
  let unquoted = text;
  for (const q of quotes) unquoted = unquoted.slice(0, q.start) + " ".repeat(q.end - q.start) + unquoted.slice(q.end);

  const paths: PathRef[] = [];
  const globs: Span[] = [];
  const extensions: Span[] = [];
  const numbers: NumberRef[] = [];
  const words: Span[] = [];

  for (const match of unquoted.matchAll(RAW_TOKEN)) {
    const raw = match[0];
    const lead = LEADING_PUNCTUATION.exec(raw)?.[0].length ?? 0;
    // A trailing "/" ("notes/") is not in TRAILING_PUNCTUATION, so directories keep it.
    const value = raw.slice(lead).replace(TRAILING_PUNCTUATION, "");
    if (value.length === 0) continue;
    const start = match.index + lead;
    const span: Span = { value, start, end: start + value.length, before: wordBefore(unquoted, start) };
    if (isGlob(value)) globs.push(span);
    else if (isPathToken(value)) paths.push({ ...span, strong: true });
    else if (BARE_EXTENSION.test(value)) extensions.push(span);
    else if (NUMERIC.test(value)) numbers.push({ ...span, number: Number(value) });
    else {
      const word = value.toLowerCase();
      const spelled = NUMBER_WORDS[word];
      if (spelled !== undefined) numbers.push({ ...span, number: spelled });
      words.push(span);
    }
  }

  for (const quote of quotes) {
    if (isGlob(quote.value)) continue;
    const strong = quote.value.includes("/") || quote.value.includes("\\") || QUOTED_FILE_WITH_EXTENSION.test(quote.value);
    // Backticks usually hold commands ("`ls -la`"); only a single path-like word in them is a path.
    if (quote.mark === "`" && (!strong || WHITESPACE.test(quote.value))) continue;
    if (strong || PATH_CUES.has(quote.before)) paths.push({ ...quote, strong, quote });
  }
  paths.push(...namedFolders(unquoted, words));
  paths.sort((a, b) => a.start - b.start);

  return { text, unquoted, quotes, paths, globs, extensions, numbers };
}

function findQuotes(text: string): Quote[] {
  const found: Quote[] = [];
  for (const { mark, pattern } of QUOTE_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const value = (m[1] ?? "").trim();
      if (value.length === 0) continue;
      found.push({ value, mark, start: m.index, end: m.index + m[0].length, before: wordBefore(text, m.index) });
    }
  }
  found.sort((a, b) => a.start - b.start);
  // Quotes of different styles may nest ("say 'hi'"): keep the outer one.
  const kept: Quote[] = [];
  for (const q of found) {
    const last = kept[kept.length - 1];
    if (!last || q.start >= last.end) kept.push(q);
  }
  return kept;
}

/** Bare names that the words around them call a folder or file: "the notes folder", "directory src". */
function namedFolders(unquoted: string, words: Span[]): PathRef[] {
  const found: PathRef[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const name = word.value;
    if (!PLAIN_NAME.test(name) || NOT_A_NAME.has(name.toLowerCase()) || DOTTED_PROSE.has(name.toLowerCase())) continue;
    // A cue counts only when nothing but spaces separates it from the name ("file, e.g." is not "file e.g").
    const adjacent = (a: Span | undefined, b: Span | undefined) => a !== undefined && b !== undefined && ONLY_SPACES.test(unquoted.slice(a.end, b.start));
    const prev = adjacent(words[i - 1], word) ? words[i - 1]?.value.toLowerCase() : undefined;
    const prev2 = adjacent(words[i - 2], words[i - 1]) ? words[i - 2]?.value.toLowerCase() : undefined;
    const next = adjacent(word, words[i + 1]) ? words[i + 1]?.value.toLowerCase() : undefined;
    const afterCue = prev !== undefined && ["folder", "directory", "dir", "file"].includes(prev);
    const afterCueNamed = (prev === "named" || prev === "called") && prev2 !== undefined && ["folder", "directory", "dir", "file"].includes(prev2);
    const beforeCue = next !== undefined && ["folder", "directory", "dir"].includes(next);
    // "find all .md files in notes": a place named at the very end of the request.
    const placeAtEnd = prev !== undefined && PLACE_PREPOSITIONS.has(prev) && ONLY_PUNCTUATION.test(unquoted.slice(word.end));
    if (afterCue || afterCueNamed || beforeCue || placeAtEnd) {
      found.push({ ...word, strong: false, before: wordBefore(unquoted, word.start) });
    }
  }
  return found;
}

/** The nearest meaningful word before `index`, lower-cased, skipping FILLER_WORDS; "" at the start. */
export function wordBefore(text: string, index: number): string {
  const words = text.slice(0, index).match(WORD) ?? [];
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i]!.toLowerCase();
    if (!FILLER_WORDS.has(word)) return word;
  }
  return "";
}
