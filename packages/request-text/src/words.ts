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

/**
 * Splits identifiers and prose into lowercase words: camelCase, PascalCase,
 * snake_case, kebab-case, dotted and slashed names ("notes/todo.md",
 * "filesystem.read_text_file") all come apart at their joints.
 */
export function splitWords(text: string): string[] {
  const spaced = text
    // a lowercase letter or digit followed by an uppercase one starts a new word: "readTextFile", "list2Dirs"
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    // an acronym followed by a capitalised word: "PDFExporter" → "PDF Exporter"; not a plural acronym ("TAFs", "URLs")
    .replace(/(\p{Lu})(\p{Lu}(?!s(?:\P{L}|$))\p{Ll})/gu, "$1 $2")
    .toLowerCase();
  // anything that is not a letter or digit separates words: _ - . / spaces punctuation
  return spaced.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

/** The tool's own name without its server: "filesystem.read_text_file" → "read_text_file". */
export function localToolName(toolName: string): string {
  return toolName.slice(toolName.lastIndexOf(".") + 1);
}
