/**
 * The words a request and a tool's name share. The selector prefers tools whose name verb
 * matches the request's verb ("read notes.md" → read_text_file rather than write_file; the
 * verbs themselves are @switchyard/request-text's), and doubts tools whose name speaks of
 * other things than the request ("read the file" → not read_graph).
 */
import { isToolVerb, localToolName, splitWords, plainWords, scanMessage, STOPWORDS } from "@switchyard/request-text";

/** Words in tool names that name neither an action nor a thing: "list_directory_with_sizes", "get_file_info". */
const NAME_FILLER = new Set(["with", "by", "of", "to", "from", "for", "in", "on", "the", "a", "an", "and", "or", "all", "get", "set", "as", "is"]);

// A path that ends in a file extension ("notes/todo.md"): the request speaks of a file.
const FILE_PATH = /\.[A-Za-z][A-Za-z0-9]{0,7}$/;
// A path that ends in a slash ("notes/"): the request speaks of a directory.
const DIRECTORY_PATH = /[/\\]$/;

/** The words of a request outside quotes and paths, as stems, plus "file"/"directory" for the paths it names. */
export function requestWords(text: string): Set<string> {
  const scan = scanMessage(text);
  const words = new Set<string>();
  for (const path of scan.paths.filter((p) => p.strong)) {
    if (FILE_PATH.test(path.value)) words.add("file");
    if (DIRECTORY_PATH.test(path.value)) for (const w of ["directory", "folder", "dir"]) words.add(w);
  }
  for (const word of plainWords(scan)) for (const stem of stems(word)) words.add(stem);
  return words;
}

/**
 * What a request speaks of: its own words outside quotes and paths that are neither function
 * words nor tool verbs. "which directories can you access?" → directories, access; "what's on my
 * to-do list?" → none ("list" is a verb to the catalog, the rest function words).
 */
export function requestThings(text: string): string[] {
  const words = plainWords(scanMessage(text)).flatMap(splitWords);
  return [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w) && !isToolVerb(w)))];
}

/** Share of `things` that a tool's own name or description says, word forms compared by `stems` (0 when there are none). */
export function thingsSaid(things: readonly string[], toolName: string, description: string): number {
  if (things.length === 0) return 0;
  const said = new Set(splitWords(`${localToolName(toolName)} ${description}`).flatMap(stems));
  return things.filter((thing) => stems(thing).some((form) => said.has(form))).length / things.length;
}

/** The things a tool's name speaks of, as stems: "read_text_file" → text, file; "list_allowed_directories" → allowed, directory, …. */
export function toolNouns(toolName: string): Set<string> {
  const nouns = new Set<string>();
  for (const word of splitWords(localToolName(toolName))) {
    if (NAME_FILLER.has(word) || isToolVerb(word)) continue;
    for (const stem of stems(word)) nouns.add(stem);
  }
  return nouns;
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
