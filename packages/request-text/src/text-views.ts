/**
 * Views of a request for rules that read it as chat: tool-need detection, step
 * splitting, the router's query. Every transform keeps the string's length, so
 * an offset found in one view (masked, lower-cased) slices the same span out of
 * the original text.
 */
import { findQuotes, maskQuotes, straightenQuotes } from "./quotes.js";
import { hasKnownExtension, tokenKind, trimToken } from "./tokens.js";
import type { TokenKind } from "./tokens.js";

// ASCII only: every character lower-cases to one character, so the whole string can go at once.
const NON_ASCII = /[^\p{ASCII}]/u;

/** Lower-cases code point by code point, leaving any character whose lower case has another length ("İ"). */
export function lowerSameLength(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return Array.from(text, (c) => {
    const lower = c.toLowerCase();
    return lower.length === c.length ? lower : c;
  }).join("");
}

/** The three views of one text, all the same length. */
export interface TextViews {
  /** The text with straight quotes. */
  source: string;
  lower: string;
  /** `lower` with quoted content masked (underscores, quote marks kept). */
  masked: string;
}

export function viewsOf(text: string): TextViews {
  const source = straightenQuotes(text);
  const lower = lowerSameLength(source);
  return { source, lower, masked: maskQuotes(lower, findQuotes(lower)) };
}

// A single-segment absolute path ("/tmp"); only trusted right after a file verb, since "/help" is a chat command.
const ROOT_PATH = /^\/[\w.@+-]+$/;
// A slash or backslash: the token is a path by its shape, not by a file name.
const SLASH = /[/\\]/;

/**
 * What kind of location a token names, if any. `loose` also accepts "/tmp". Stricter than
 * `tokenKind`, which the selector uses once a tool is wanted: in chat, dotted names are often
 * not files ("ASP.NET", "example.com"), so a bare name counts only with a known file extension.
 */
export function pathKindOf(rawToken: string, loose = false): TokenKind | undefined {
  const token = trimToken(rawToken).value;
  const kind = tokenKind(token);
  if (kind !== "path" || hasKnownExtension(token)) return kind;
  if (!SLASH.test(token)) return undefined;
  if (ROOT_PATH.test(token)) return loose ? "path" : undefined;
  return "path";
}

/** The first path or link in the text, as written. */
export function findPath(text: string, loose = false): { kind: TokenKind; token: string } | undefined {
  for (const raw of text.split(/\s+/)) {
    const kind = pathKindOf(raw, loose);
    if (kind) return { kind, token: trimToken(raw).value };
  }
  return undefined;
}

/** Words of a text, for length checks. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => /\w/.test(w)).length;
}
