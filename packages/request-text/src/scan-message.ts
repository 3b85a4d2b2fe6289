/**
 * Reads a request once into the pieces the stages work with: quoted strings, path-like
 * tokens, glob patterns, file extensions and numbers, each with its position and the word in
 * front of it, and the plain words left over. Nothing here knows about tools or schemas.
 */
import { findQuotes } from "./quotes.js";
import type { Quote } from "./quotes.js";
import type { Span } from "./span.js";
import { isBareExtension, isDottedProse, isGlob, isPathToken, isSpacedFileName, trimToken } from "./tokens.js";
import { lowerWords, wordBefore } from "./words.js";

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

/** Words in front of a quote that make it a path: "in 'docs'", "to 'out'", "the file 'todo'". */
const PATH_CUES = new Set(["in", "into", "to", "from", "under", "inside", "at", "as", "file", "folder", "directory", "dir"]);

/** Prepositions that name a place when a bare word ends the request: "search for TODO in notes". */
const PLACE_PREPOSITIONS = new Set(["in", "under", "inside", "within"]);

/** Words after "file"/"folder" or before "folder"/"directory" that are not names: "the current directory". */
const NOT_A_NAME = new Set([
  "the", "a", "an", "my", "our", "your", "this", "that", "these", "those", "its", "current", "same", "following",
  "new", "whole", "entire", "contents", "content", "and", "or", "of", "in", "to", "from", "for", "with", "please",
  "is", "it", "there", "here", "called", "named", "list", "show", "read", "open",
]);

/** Small numbers as words ("the first ten lines"). A Map, so words such as "constructor" find nothing. */
const NUMBER_WORDS = new Map<string, number>([
  ["one", 1], ["two", 2], ["three", 3], ["four", 4], ["five", 5], ["six", 6], ["seven", 7], ["eight", 8], ["nine", 9], ["ten", 10],
  ["eleven", 11], ["twelve", 12], ["fifteen", 15], ["twenty", 20], ["thirty", 30], ["fifty", 50], ["hundred", 100],
]);

// An integer or decimal, optionally signed.
const NUMERIC = /^[-+]?\d+(?:\.\d+)?$/;
// Only spaces between two words.
const ONLY_SPACES = /^\s+$/;
// Nothing but spaces and sentence punctuation: the end of the request.
const ONLY_PUNCTUATION = /^[\s.!?]*$/;
// A bare name: letters, digits, dots, dashes, underscores ("notes", "src", "v2.1-drafts").
const PLAIN_NAME = /^[\w.-]+$/;
// A run of non-space characters: one raw token.
const RAW_TOKEN = /\S+/g;
// Any whitespace: a quoted phrase of several words is not a single path.
const WHITESPACE = /\s/;

/** True for a small number written as a word ("ten"). */
export function isNumberWord(word: string): boolean {
  return NUMBER_WORDS.has(word.toLowerCase());
}

/** Splits a request into quotes, paths, globs, extensions and numbers. */
export function scanMessage(text: string): MessageScan {
  const quotes = findQuotes(text);
  const unquoted = blank(text, quotes);

  const paths: PathRef[] = [];
  const globs: Span[] = [];
  const extensions: Span[] = [];
  const numbers: NumberRef[] = [];
  const words: Span[] = [];

  for (const match of unquoted.matchAll(RAW_TOKEN)) {
    const { value, offset } = trimToken(match[0]);
    if (value.length === 0) continue;
    const start = match.index + offset;
    const span: Span = { value, start, end: start + value.length, before: wordBefore(unquoted, start) };
    if (isGlob(value)) globs.push(span);
    else if (isPathToken(value)) paths.push({ ...span, strong: true });
    else if (isBareExtension(value)) extensions.push(span);
    else if (NUMERIC.test(value)) numbers.push({ ...span, number: Number(value) });
    else {
      const spelled = NUMBER_WORDS.get(value.toLowerCase());
      if (spelled !== undefined) numbers.push({ ...span, number: spelled });
      words.push(span);
    }
  }

  for (const quote of quotes) {
    if (isGlob(quote.value)) continue;
    const strong = quote.value.includes("/") || quote.value.includes("\\") || isSpacedFileName(quote.value);
    // Backticks usually hold commands ("`ls -la`"); only a single path-like word in them is a path.
    if (quote.mark === "`" && (!strong || WHITESPACE.test(quote.value))) continue;
    if (strong || PATH_CUES.has(quote.before)) paths.push({ ...quote, strong, quote });
  }
  paths.push(...namedFolders(unquoted, words));
  paths.sort((a, b) => a.start - b.start);

  return { text, unquoted, quotes, paths, globs, extensions, numbers };
}

/**
 * The request's own words, lower-cased and in order: quotes, strong paths, globs and bare
 * extensions left out, so "read save.txt" has the verb "read" and no "save".
 */
export function plainWords(scan: MessageScan): string[] {
  const strongPaths = scan.paths.filter((p) => p.strong);
  return lowerWords(blank(scan.unquoted, [...strongPaths, ...scan.globs, ...scan.extensions]));
}

/** `text` with each span replaced by spaces (same length). */
function blank(text: string, spans: readonly { start: number; end: number }[]): string {
  let result = text;
  for (const s of spans) result = result.slice(0, s.start) + " ".repeat(s.end - s.start) + result.slice(s.end);
  return result;
}

/** Bare names that the words around them call a folder or file: "the notes folder", "directory src". */
function namedFolders(unquoted: string, words: Span[]): PathRef[] {
  const found: PathRef[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const name = word.value;
    if (!PLAIN_NAME.test(name) || NOT_A_NAME.has(name.toLowerCase()) || isDottedProse(name)) continue;
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
