/**
 * Text helpers shared by detection and step splitting. Every transform keeps
 * the string's length, so an offset found in one view (masked, lower-cased)
 * slices the same span out of the original text.
 */

/** Curly quotes become straight ones (each is one UTF-16 unit either way). */
export function straightenQuotes(text: string): string {
  // ‘ ’ ‚ ′ → '   “ ” „ ″ → "
  return text.replace(/[\u2018\u2019\u201A\u2032]/g, "'").replace(/[\u201C\u201D\u201E\u2033]/g, '"');
}

/** Lower-cases code point by code point, leaving any character whose lower case has another length ("İ"). */
export function lowerSameLength(text: string): string {
  return Array.from(text, (c) => {
    const lower = c.toLowerCase();
    return lower.length === c.length ? lower : c;
  }).join("");
}

// Quoted spans: fenced code first, then `code`, "double" and 'single' quotes. A single
// quote opens only after a non-word character and closes before one, so the
// apostrophes in "don't" or "Bob's" never open a span.
const QUOTED = /```[\s\S]*?```|`[^`\n]*`|"[^"\n]*"|(?<!\w)'[^'\n]*'(?!\w)/g;

/**
 * Replaces what is inside quotes with underscores and keeps the quote marks,
 * so "then", "and", commas or file-ish words inside a quoted literal
 * (`write 'and then there were none' to a.md`) never count as structure.
 */
export function maskQuoted(text: string): string {
  return text.replace(QUOTED, (span) => {
    const fence = span.startsWith("```") ? 3 : 1;
    return span.slice(0, fence) + "_".repeat(span.length - 2 * fence) + span.slice(span.length - fence);
  });
}

/** The three views of one text, all the same length. */
export interface TextViews {
  /** The text with straight quotes. */
  source: string;
  lower: string;
  /** `lower` with quoted content masked. */
  masked: string;
}

export function viewsOf(text: string): TextViews {
  const source = straightenQuotes(text);
  const lower = lowerSameLength(source);
  return { source, lower, masked: maskQuoted(lower) };
}

// File extensions that make a bare token a file name ("todo.md", "report.pdf").
const FILE_EXTENSION =
  /^[\w~./@+-]*[\w-]\.(?:md|markdown|mdx|txt|text|rst|json|jsonl|ya?ml|toml|ini|cfg|conf|env|lock|py|ipynb|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|cs|swift|c|h|cc|cpp|hpp|sh|bash|zsh|ps1|sql|csv|tsv|log|xml|html?|css|scss|pdf|docx?|xlsx?|pptx?|odt|png|jpe?g|gif|svg|webp|zip|tar|gz|tgz|proto|lua|pl|dockerfile)$/;

// Libraries named like files ("node.js"): talked about, not opened.
const LIBRARY_NAME =
  /^(?:node|next|nuxt|vue|react|express|d3|three|chart|ember|backbone|angular|p5|socket|solid|alpine|ext|moment|underscore|lodash|jquery|knockout|meteor|nest|svelte|preact|babylon|pixi|anime|video|tensorflow|brain|ml5|marked|highlight|reveal|impress)\.js$/;

// A relative or absolute path: segments of word characters, dots, @, + and -, joined by slashes.
const SLASH_PATH = /^(?:~|\.{1,2})?\/?[\w.@+-]+(?:\/[\w.@+-]*)+$/;

// A single-segment absolute path ("/tmp"); only trusted right after a file verb, since "/help" is a chat command.
const ROOT_PATH = /^\/[\w.@+-]+$/;

// Slash pairs of ordinary prose ("and/or", "24/7", "km/h") are not paths.
const PROSE_SLASH = new Set([
  "and/or", "either/or", "yes/no", "on/off", "he/she", "him/her", "his/her", "his/hers", "s/he", "w/o", "n/a",
  "i/o", "tcp/ip", "input/output", "read/write", "true/false", "pros/cons", "client/server", "black/white",
  "day/night", "win/win", "open/close", "start/stop", "up/down", "left/right", "male/female", "am/pm",
]);

// Links: a scheme, or a bare "www." host.
const URL = /^(?:https?|ftp|file|s3|gs):\/\/\S+$|^www\.[\w-]+\.\S+$/;

/** Characters that wrap a token in prose: quotes, brackets, and trailing sentence punctuation. */
function unwrap(token: string): string {
  // Leading: quotes and opening brackets. Trailing: quotes, closing brackets, sentence punctuation.
  return token.replace(/^[("'`[<{]+/, "").replace(/[)"'`\]>},;:!?.]+$/, "");
}

export type PathKind = "path" | "url";

/** What kind of location a token names, if any. `loose` also accepts "/tmp". */
export function pathKindOf(rawToken: string, loose = false): PathKind | undefined {
  const token = unwrap(rawToken);
  const lower = token.toLowerCase();
  if (URL.test(lower)) return "url";
  if (LIBRARY_NAME.test(lower)) return undefined;
  if (FILE_EXTENSION.test(lower)) return "path";
  if (SLASH_PATH.test(lower)) {
    if (PROSE_SLASH.has(lower)) return undefined;
    // Fractions, dates, ratios: "1/2", "24/7", "12/05/2024".
    if (/^[\d/.]+$/.test(lower)) return undefined;
    // Unit-like pairs of tiny segments ("km/h", "ui/ux") unless anchored like "./a" or "~/x".
    const anchored = /^(?:~|\.{1,2})?\//.test(lower);
    if (!anchored && lower.split("/").every((segment) => segment.length <= 2)) return undefined;
    return "path";
  }
  if (loose && ROOT_PATH.test(lower)) return "path";
  return undefined;
}

/** The first path or link in the text, as written. */
export function findPath(text: string, loose = false): { kind: PathKind; token: string } | undefined {
  for (const raw of text.split(/\s+/)) {
    const kind = pathKindOf(raw, loose);
    if (kind) return { kind, token: unwrap(raw) };
  }
  return undefined;
}

/** Words of a text, for length checks. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => /\w/.test(w)).length;
}
