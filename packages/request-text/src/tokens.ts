/**
 * What one whitespace-separated token of a request names: a path, a link, a glob, a bare
 * extension, or nothing a tool acts on. Prose that merely looks like a path ("and/or", "24/7",
 * "km/h", "node.js", "e.g.") is recognised and left out.
 */

export type TokenKind = "path" | "url";

/** Text or media, for matching a file to a tool that names the kind it handles; "unknown" never counts against. */
export type FileKind = "text" | "media" | "unknown";

/** File extensions people name files with, by what the file holds ("other": documents, archives, binaries). */
const EXTENSIONS = new Map<string, FileKind | "other">([
  ...[
    "txt", "text", "md", "markdown", "mdx", "rst", "tex", "json", "jsonl", "ipynb", "yaml", "yml", "toml", "ini", "cfg",
    "conf", "env", "lock", "csv", "tsv", "xml", "html", "htm", "css", "scss", "js", "mjs", "cjs", "ts", "tsx", "jsx",
    "py", "rb", "go", "rs", "java", "kt", "swift", "c", "h", "cc", "cpp", "hpp", "cs", "php", "lua", "pl", "sh", "bash",
    "zsh", "ps1", "sql", "log", "proto", "dockerfile",
  ].map((e) => [e, "text"] as const),
  ...[
    "png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tif", "tiff", "heic",
    "mp3", "wav", "ogg", "flac", "m4a", "aac", "opus", "mp4", "mov", "avi", "mkv", "webm",
  ].map((e) => [e, "media"] as const),
  ...["svg", "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "zip", "tar", "gz", "tgz"].map((e) => [e, "other"] as const),
]);

/** Slash pairs of ordinary prose, not paths. */
const PROSE_SLASH = new Set([
  "and/or", "either/or", "yes/no", "on/off", "he/she", "him/her", "his/her", "his/hers", "s/he", "w/", "w/o", "n/a",
  "i/o", "tcp/ip", "input/output", "read/write", "true/false", "pros/cons", "client/server", "black/white",
  "day/night", "win/win", "open/close", "start/stop", "up/down", "left/right", "male/female", "am/pm",
]);

/** Dotted words that look like file names but are abbreviations or the names of libraries: talked about, not opened. */
const DOTTED_PROSE = new Set([
  "e.g", "i.e", "a.m", "p.m", "vs", "etc", "socket.io",
  ...[
    "node", "next", "nuxt", "vue", "react", "express", "d3", "three", "chart", "ember", "backbone", "angular", "p5",
    "socket", "solid", "alpine", "ext", "moment", "underscore", "lodash", "jquery", "knockout", "meteor", "nest",
    "svelte", "preact", "babylon", "pixi", "anime", "video", "tensorflow", "brain", "ml5", "marked", "highlight",
    "reveal", "impress",
  ].map((library) => `${library}.js`),
]);

// A link: a scheme and "://", or a bare "www." host.
const URL_TOKEN = /^[a-z][a-z0-9+.-]*:\/\/|^www\.[\w-]+\.\S/i;
// Numbers with slashes or dots and nothing else (dates 12/05/2024, fractions 1/2, "24/7"), or bare slashes: not paths.
const NUMBERS_AND_SLASHES = /^[\d/]+$|^\d[\d./]*$/;
// A path that starts at a root: "/", "./", "../" or "~/".
const ANCHORED = /^(?:~|\.{1,2})?\//;
// A file name with an extension: a name of word characters, dots, dashes or "~", then a dot and a
// 1–8 character extension that starts with a letter ("todo.md", "a.tar.gz").
const FILE_NAME = /^[\w~.-]*\w\.[A-Za-z][A-Za-z0-9_]{0,7}$/;
// The same with spaces allowed in the name, as inside quotes ("my notes.txt").
const SPACED_FILE_NAME = /^[\w~. -]*\w\.[A-Za-z][A-Za-z0-9_]{0,7}$/;
// The extension at the end of a file name: "notes/todo.md" → "md".
const EXTENSION = /\.([A-Za-z0-9]+)$/;
// A bare extension such as ".md" or ".json", as in "find all .md files".
const BARE_EXTENSION = /^\.[A-Za-z][A-Za-z0-9]{0,7}$/;
// Any whitespace: a "?" in a phrase is a question, in a single word a wildcard.
const WHITESPACE = /\s/;
// Brackets and quote marks that may open a token: "(see notes/a.md)".
const LEADING_PUNCTUATION = /^[([{<"'`“‘]+/;
// Closing brackets, quote marks and sentence punctuation that may end a token: "read notes/todo.md."
// A trailing "/" ("notes/") is not among them, so directories keep it.
const TRAILING_PUNCTUATION = /[)\]}>.,;:!?"'`”’]+$/;

/** A raw token without the brackets, quote marks and punctuation that wrap it in prose; `offset` is where the value starts. */
export function trimToken(raw: string): { value: string; offset: number } {
  const offset = LEADING_PUNCTUATION.exec(raw)?.[0].length ?? 0;
  return { value: raw.slice(offset).replace(TRAILING_PUNCTUATION, ""), offset };
}

/** What a (trimmed) token names: a link, a path (a slash, or a file name with an extension), or nothing. */
export function tokenKind(token: string): TokenKind | undefined {
  if (token.length === 0) return undefined;
  if (URL_TOKEN.test(token)) return "url";
  if (NUMBERS_AND_SLASHES.test(token)) return undefined;
  const lower = token.toLowerCase();
  if (token.includes("/") || token.includes("\\")) {
    if (PROSE_SLASH.has(lower)) return undefined;
    // Unit-like pairs of tiny segments ("km/h", "ui/ux") unless anchored like "./a" or "~/x".
    if (!ANCHORED.test(lower) && !token.includes("\\") && lower.split("/").every((segment) => segment.length <= 2)) return undefined;
    return "path";
  }
  return FILE_NAME.test(token) && !DOTTED_PROSE.has(lower) ? "path" : undefined;
}

/** True when a token outside quotes looks like a path: a slash, or a file name with an extension. */
export function isPathToken(token: string): boolean {
  return tokenKind(token) === "path";
}

/** True for abbreviations and library names that look like file names ("e.g", "node.js"). */
export function isDottedProse(word: string): boolean {
  return DOTTED_PROSE.has(word.toLowerCase());
}

/** True when a token holds glob wildcards ("*.md"). */
export function isGlob(token: string): boolean {
  return token.includes("*") || (token.includes("?") && !WHITESPACE.test(token));
}

/** True for a bare extension (".md"). */
export function isBareExtension(token: string): boolean {
  return BARE_EXTENSION.test(token);
}

/** True for a file name with an extension where spaces may be part of the name, as inside quotes ("my notes.txt"). */
export function isSpacedFileName(name: string): boolean {
  return SPACED_FILE_NAME.test(name);
}

/** True when the file's extension is one people name files with ("md", "pdf", "png"), not just any dotted word. */
export function hasKnownExtension(path: string): boolean {
  const extension = EXTENSION.exec(path)?.[1]?.toLowerCase();
  return extension !== undefined && EXTENSIONS.has(extension);
}

/** Text or media by the file's extension: "notes/todo.md" → text, "photo.PNG" → media. */
export function fileKindOf(path: string): FileKind {
  const kind = EXTENSIONS.get(EXTENSION.exec(path)?.[1]?.toLowerCase() ?? "");
  return kind === "text" || kind === "media" ? kind : "unknown";
}
