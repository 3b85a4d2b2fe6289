/**
 * Words: of a request (lower-cased, apostrophes kept inside a word), and of a tool or
 * property name split at its camelCase, snake_case, kebab-case and dotted boundaries.
 */

/** Words skipped when looking for the word in front of a span: "to the file notes.md" has "to" before notes.md. */
const FILLER_WORDS = new Set(["the", "a", "an", "my", "our", "your", "this", "that", "new", "file", "files", "folder", "directory", "dir"]);

// A word (letters, digits, underscore, apostrophe), for walking backwards to the previous word.
const WORD_BEFORE = /[\w']+/g;
// A lower-case word of letters, with apostrophes only inside it ("don't", not "'delete").
const LOWER_WORD = /[a-z]+(?:'[a-z]+)*/g;
// camelCase, snake_case, kebab-case, dotted and spaced boundaries in names.
const NAME_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|[_\-\s.]+/;

/** The nearest meaningful word before `index`, lower-cased, skipping articles and "file"/"folder"; "" at the start. */
export function wordBefore(text: string, index: number): string {
  const words = text.slice(0, index).match(WORD_BEFORE) ?? [];
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i]!.toLowerCase();
    if (!FILLER_WORDS.has(word)) return word;
  }
  return "";
}

/** The lower-case words of `text`, in order: "Don't delete it" → don't, delete, it. */
export function lowerWords(text: string): string[] {
  return text.toLowerCase().match(LOWER_WORD) ?? [];
}

/** A name's words, lower-cased: "read_text_file" → read, text, file; "sortBy" → sort, by. */
export function nameWords(name: string): string[] {
  return name.split(NAME_BOUNDARY).filter(Boolean).map((w) => w.toLowerCase());
}

/** The tool's own name without its server: "filesystem.read_text_file" → "read_text_file". */
export function localToolName(toolName: string): string {
  return toolName.slice(toolName.lastIndexOf(".") + 1);
}
