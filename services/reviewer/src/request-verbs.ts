/**
 * What a request asks to do, in two classes: changing things (delete, write, create, move,
 * run…) and looking at things (read, show, list, search…). The reviewer refuses a call whose
 * tool contradicts the request: "delete notes/todo.md" answered with a read-only tool, or
 * "show notes/todo.md" answered with a tool that writes.
 */

export interface RequestVerbs {
  /** Verbs that change things ("delete", "save"). */
  changing: string[];
  /** Verbs that look at things. */
  looking: string[];
}

/** Base forms of verbs that change things. */
const CHANGING = new Set([
  "delete", "remove", "rm", "erase", "unlink", "destroy", "write", "save", "store", "overwrite", "append", "create",
  "make", "mkdir", "add", "insert", "edit", "modify", "change", "replace", "update", "patch", "move", "rename", "mv",
  "run", "execute", "exec", "launch",
]);
/** Base forms of verbs that only look. */
const LOOKING = new Set(["read", "show", "view", "open", "cat", "display", "print", "list", "ls", "browse", "search", "find", "grep", "locate", "lookup"]);

// A quoted stretch ("…", '…', `…`, “…”): quoted words are content or names, not the request's verbs.
const QUOTED = /"[^"\n]*"|“[^”\n]*”|`[^`\n]*`|(?<=^|[\s(:=,])'[^'\n]*'(?=$|[\s).,;:!?])/g;
// A path-like token: has a slash or backslash, or ends in a file extension ("save.txt" is a file, not "save").
const PATH_TOKEN = /\S*[/\\]\S*|\b[\w~.-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}\b/g;
// A lower-case word.
const WORD = /[a-z]+/g;

/**
 * The changing and looking verbs of a request, ignoring quoted text and paths. Only plain verb
 * forms count, as in requests ("delete", "save", "show"): "what changed" or "the latest updates"
 * speak about changes without asking for one.
 */
export function requestVerbs(text: string): RequestVerbs {
  const plain = text.replace(QUOTED, " ").replace(PATH_TOKEN, " ").toLowerCase();
  const changing: string[] = [];
  const looking: string[] = [];
  for (const word of plain.match(WORD) ?? []) {
    if (CHANGING.has(word)) changing.push(word);
    else if (LOOKING.has(word)) looking.push(word);
  }
  return { changing, looking };
}
