/**
 * Quoted spans of a request: what the user quoted is a literal (content, a name, a command),
 * never the request's own structure or verbs. Offsets always refer to the text as given; the
 * search runs on a copy with straight quotes, which has the same length.
 */
import type { Span } from "./span.js";
import { wordBefore } from "./words.js";

export interface Quote extends Span {
  /** Backticks (and ``` fences) as people quote commands and code; double or single quotes otherwise. */
  mark: '"' | "'" | "`";
}

/** Curly quotes and primes become straight ones (each is one UTF-16 unit either way, so offsets hold). */
export function straightenQuotes(text: string): string {
  // ‘ ’ ‚ ′ → '   “ ” „ ″ → "
  return text.replace(/[\u2018\u2019\u201A\u2032]/g, "'").replace(/[\u201C\u201D\u201E\u2033]/g, '"');
}

// Each quote style has its own pattern, run over the straightened text; `g` so every occurrence is found.
const QUOTE_PATTERNS: { mark: Quote["mark"]; width: number; pattern: RegExp }[] = [
  // ```…```: a fenced code block, over several lines.
  { mark: "`", width: 3, pattern: /```([\s\S]*?)```/g },
  // "…": anything up to the next double quote on the line.
  { mark: '"', width: 1, pattern: /"([^"\n]+)"/g },
  // `…`: backticks, as people quote commands and code.
  { mark: "`", width: 1, pattern: /`([^`\n]+)`/g },
  // '…': only when the opening quote starts a word and the closing one ends it, so the
  // apostrophes in "don't" or "what's" never open or close a quote.
  { mark: "'", width: 1, pattern: /(?<=^|[\s([{:=,])'([^'\n]+?)'(?=$|[\s)\]},.;:!?])/g },
];

/**
 * The quoted spans of `text`, in order. Quotes of different styles may nest ("say 'hi'"):
 * the outer one is kept. Empty quotes are left out.
 */
export function findQuotes(text: string): Quote[] {
  const straight = straightenQuotes(text);
  const found: Quote[] = [];
  for (const { mark, width, pattern } of QUOTE_PATTERNS) {
    for (const m of straight.matchAll(pattern)) {
      const end = m.index + m[0].length;
      const value = text.slice(m.index + width, end - width).trim();
      if (value.length === 0) continue;
      found.push({ value, mark, start: m.index, end, before: wordBefore(text, m.index) });
    }
  }
  found.sort((a, b) => a.start - b.start);
  const kept: Quote[] = [];
  for (const q of found) {
    const last = kept[kept.length - 1];
    if (!last || q.start >= last.end) kept.push(q);
  }
  return kept;
}

/**
 * `text` with what is inside each quote replaced by underscores, quote marks kept (same
 * length), so "then", "and", commas or file-ish words inside a quoted literal
 * (`write 'and then there were none' to a.md`) never count as structure.
 */
export function maskQuotes(text: string, quotes: readonly Quote[]): string {
  let masked = text;
  for (const q of quotes) {
    const width = text.startsWith("```", q.start) ? 3 : 1;
    masked = masked.slice(0, q.start + width) + "_".repeat(q.end - q.start - 2 * width) + masked.slice(q.end - width);
  }
  return masked;
}
