/**
 * The action a request asks for and the action a tool's name promises, as a small vocabulary
 * of verbs, and the things both speak of. The selector prefers tools whose name verb matches
 * the request's verb ("read notes.md" → read_text_file rather than write_file), and doubts
 * tools whose name speaks of other things than the request ("read the file" → not read_graph).
 */
import { scanMessage } from "./scan-message.js";

export type Action = "read" | "list" | "search" | "write" | "create" | "edit" | "move" | "delete" | "run";

/** Verbs as they appear in requests. "show" and "view" read a file or list a folder alike. */
const REQUEST_VERBS: Record<string, Action[]> = {
  read: ["read"], show: ["read", "list"], view: ["read", "list"], open: ["read"], cat: ["read"], display: ["read", "list"],
  print: ["read"], list: ["list"], ls: ["list"], browse: ["list"],
  search: ["search"], find: ["search"], grep: ["search"], locate: ["search"], lookup: ["search"],
  write: ["write"], save: ["write"], store: ["write"], put: ["write"], overwrite: ["write"], append: ["write"],
  create: ["create"], make: ["create"], mkdir: ["create"], add: ["create"], insert: ["create"],
  edit: ["edit"], modify: ["edit"], change: ["edit"], replace: ["edit"], update: ["edit"], patch: ["edit"],
  move: ["move"], rename: ["move"], mv: ["move"], relocate: ["move"],
  delete: ["delete"], remove: ["delete"], rm: ["delete"], erase: ["delete"], unlink: ["delete"], destroy: ["delete"],
  run: ["run"], execute: ["run"], exec: ["run"], launch: ["run"], invoke: ["run"],
};

/** Verbs as they appear in tool names: the request verbs plus a few naming habits ("open_nodes", "directory_tree"). */
const TOOL_VERBS: Record<string, Action[]> = { ...REQUEST_VERBS, tree: ["list"], query: ["search"], new: ["create"], drop: ["delete"] };

// A lower-case word, apostrophes included ("don't"), for splitting text into words.
const WORD = /[a-z']+/g;
// camelCase, snake_case, kebab-case and dotted boundaries in tool names.
const NAME_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|[_\-\s.]+/;

/** Words in tool names that name neither an action nor a thing: "list_directory_with_sizes", "get_file_info". */
const NAME_FILLER = new Set(["with", "by", "of", "to", "from", "for", "in", "on", "the", "a", "an", "and", "or", "all", "get", "set", "as", "is"]);

// A path that ends in a file extension ("notes/todo.md"): the request speaks of a file.
const FILE_PATH = /\.[A-Za-z][A-Za-z0-9]{0,7}$/;
// A path that ends in a slash ("notes/"): the request speaks of a directory.
const DIRECTORY_PATH = /[/\\]$/;

/** The words of a request outside quotes and paths, as stems, plus "file"/"directory" for the paths it names. */
export function requestWords(text: string): Set<string> {
  const scan = scanMessage(text);
  let plain = scan.unquoted;
  const words = new Set<string>();
  for (const span of [...scan.paths, ...scan.globs, ...scan.extensions]) {
    plain = plain.slice(0, span.start) + " ".repeat(span.end - span.start) + plain.slice(span.end);
  }
  for (const path of scan.paths.filter((p) => p.strong)) {
    if (FILE_PATH.test(path.value)) words.add("file");
    if (DIRECTORY_PATH.test(path.value)) for (const w of ["directory", "folder", "dir"]) words.add(w);
  }
  for (const word of plain.toLowerCase().match(WORD) ?? []) for (const stem of stems(word)) words.add(stem);
  return words;
}

/** The actions a request's verbs ask for, ignoring words inside quotes and paths ("read save.txt" only reads). */
export function requestActions(words: Set<string>): Set<Action> {
  const actions = new Set<Action>();
  for (const word of words) for (const action of REQUEST_VERBS[word] ?? []) actions.add(action);
  return actions;
}

/** The things a tool's name speaks of, as stems: "read_text_file" → text, file; "list_allowed_directories" → allowed, directory, …. */
export function toolNouns(toolName: string): Set<string> {
  const local = toolName.slice(toolName.lastIndexOf(".") + 1);
  const nouns = new Set<string>();
  for (const word of local.split(NAME_BOUNDARY).map((w) => w.toLowerCase())) {
    if (!word || NAME_FILLER.has(word) || TOOL_VERBS[word]) continue;
    for (const stem of stems(word)) nouns.add(stem);
  }
  return nouns;
}

/** The actions a tool's name promises: "filesystem.read_text_file" → read; "memory.add_observations" → create. */
export function toolActions(toolName: string): Set<Action> {
  const local = toolName.slice(toolName.lastIndexOf(".") + 1);
  const actions = new Set<Action>();
  for (const word of local.split(NAME_BOUNDARY)) {
    for (const action of TOOL_VERBS[word.toLowerCase()] ?? []) actions.add(action);
  }
  return actions;
}

/** The word and its likely base forms: "reading" → read, "saved" → save, "running" → run, "files" → file. */
export function stems(word: string): string[] {
  const forms = [word];
  const strip = (suffix: string) => (word.endsWith(suffix) && word.length > suffix.length + 2 ? word.slice(0, -suffix.length) : undefined);
  for (const base of [strip("ing"), strip("ed")]) {
    if (!base) continue;
    forms.push(base, `${base}e`);
    // A doubled final consonant: "running" → "run", "dropped" → "drop".
    if (base.length > 2 && base[base.length - 1] === base[base.length - 2]) forms.push(base.slice(0, -1));
  }
  // "directories" → "directory", "entities" → "entity".
  const ies = strip("ies");
  if (ies) forms.push(`${ies}y`);
  const plural = strip("es");
  if (plural) forms.push(plural);
  const single = strip("s");
  if (single) forms.push(single);
  return forms;
}
