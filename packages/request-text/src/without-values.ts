/**
 * What a request says, without what it names: two requests alike in their values alone ("how
 * big is notes/todo.md?", "delete notes/todo.md") do not ask for the same thing. The router
 * compares taught examples with requests on this text, so that an example lifts its tool for
 * requests that resemble it as a whole, whatever file, address or number each one names.
 */
import { scanMessage } from "./scan-message.js";
import type { Span } from "./span.js";
import { tokenKind, trimToken } from "./tokens.js";

// An e-mail address as a whole token.
const EMAIL = /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/;
// A run of non-space characters: one raw token.
const RAW_TOKEN = /\S+/g;
// Two or more spaces, left where values were taken out.
const SPACES = /\s{2,}/g;

/** `text` without its values: quoted strings, paths and file names, globs, extensions, numbers, links and e-mail addresses. */
export function withoutValues(text: string): string {
  const scan = scanMessage(text);
  const spans: { start: number; end: number }[] = [...scan.quotes, ...scan.paths, ...scan.globs, ...scan.extensions, ...scan.numbers.filter(isDigits), ...addresses(scan.unquoted)];
  // a quoted path is both a quote and a path: each stretch of the text is taken out once
  let result = "";
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.start > at) result += `${text.slice(at, s.start)} `;
    at = Math.max(at, s.end);
  }
  return (result + text.slice(at)).replace(SPACES, " ").trim();
}

/** Written in digits: "ten" in "the first ten lines" is a word of the request. */
function isDigits(number: Span): boolean {
  return /\d/.test(number.value);
}

/** Links and e-mail addresses outside quotes, which the message scan leaves among the words. */
function addresses(unquoted: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  for (const match of unquoted.matchAll(RAW_TOKEN)) {
    const { value, offset } = trimToken(match[0]);
    if (tokenKind(value) !== "url" && !EMAIL.test(value)) continue;
    const start = match.index + offset;
    found.push({ start, end: start + value.length });
  }
  return found;
}
