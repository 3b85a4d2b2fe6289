/**
 * One vocabulary of verbs for every stage: the action a request's verb asks for, the action
 * a tool's name promises, and which actions change things (write, create, edit, move,
 * delete, run) rather than only look (read, list, search). The selector matches request
 * verbs to tool-name verbs; the reviewer refuses a tool whose side effect contradicts the
 * request's verbs; policy reads a tool's name for the verbs that change things.
 */
import { plainWords, scanMessage } from "./scan-message.js";
import { localToolName, splitWords } from "./words.js";

export type Action = "read" | "list" | "search" | "write" | "create" | "edit" | "move" | "delete" | "run";

/** Actions that change things; every other action only looks. */
const CHANGING_ACTIONS: ReadonlySet<Action> = new Set<Action>(["write", "create", "edit", "move", "delete", "run"]);

/**
 * Verbs as they appear in requests, in their plain form. "show" and "view" read a file or list
 * a folder alike. A Map, so that words such as "constructor" find nothing.
 */
const REQUEST_VERBS = new Map<string, readonly Action[]>([
  ["read", ["read"]], ["show", ["read", "list"]], ["view", ["read", "list"]], ["open", ["read"]], ["cat", ["read"]],
  ["display", ["read", "list"]], ["print", ["read"]], ["list", ["list"]], ["ls", ["list"]], ["browse", ["list"]],
  ["search", ["search"]], ["find", ["search"]], ["grep", ["search"]], ["locate", ["search"]], ["lookup", ["search"]],
  ["write", ["write"]], ["save", ["write"]], ["store", ["write"]], ["put", ["write"]], ["overwrite", ["write"]], ["append", ["write"]],
  ["create", ["create"]], ["make", ["create"]], ["mkdir", ["create"]], ["add", ["create"]], ["insert", ["create"]],
  ["edit", ["edit"]], ["modify", ["edit"]], ["change", ["edit"]], ["replace", ["edit"]], ["update", ["edit"]], ["patch", ["edit"]],
  ["move", ["move"]], ["rename", ["move"]], ["mv", ["move"]], ["relocate", ["move"]],
  ["delete", ["delete"]], ["remove", ["delete"]], ["rm", ["delete"]], ["erase", ["delete"]], ["unlink", ["delete"]], ["destroy", ["delete"]],
  ["run", ["run"]], ["execute", ["run"]], ["exec", ["run"]], ["launch", ["run"]], ["invoke", ["run"]],
]);

/** Verbs as they appear in tool names: the request verbs plus a few naming habits ("directory_tree", "new_page"). */
const TOOL_VERBS = new Map<string, readonly Action[]>([
  ...REQUEST_VERBS,
  ["tree", ["list"]], ["query", ["search"]], ["new", ["create"]], ["drop", ["delete"]],
]);

/** True when the action changes things (write, create, edit, move, delete, run). */
export function changesThings(action: Action): boolean {
  return CHANGING_ACTIONS.has(action);
}

/** The actions a request verb asks for: "show" → read, list; "delete" → delete; not a verb → none. */
export function verbActions(word: string): readonly Action[] {
  return REQUEST_VERBS.get(word) ?? [];
}

/** The actions a request's words ask for. */
export function requestActions(words: Iterable<string>): Set<Action> {
  const actions = new Set<Action>();
  for (const word of words) for (const action of verbActions(word)) actions.add(action);
  return actions;
}

/** True when a word of a tool's name is a verb ("read", "tree", "drop"), not a thing it acts on. */
export function isToolVerb(word: string): boolean {
  return TOOL_VERBS.has(word);
}

/** The actions a tool's name promises: "filesystem.read_text_file" → read; "memory.add_observations" → create. */
export function toolActions(toolName: string): Set<Action> {
  const actions = new Set<Action>();
  for (const word of splitWords(localToolName(toolName))) {
    for (const action of TOOL_VERBS.get(word) ?? []) actions.add(action);
  }
  return actions;
}

export interface RequestVerbs {
  /** Verbs that change things ("delete", "save"), in order, repeats kept. */
  changing: string[];
  /** Verbs that only look at things ("read", "show", "list"). */
  looking: string[];
}

/**
 * The changing and looking verbs of a request, ignoring quoted text and paths ("read save.txt"
 * only reads). Only plain verb forms count, as in requests ("delete", "save", "show"): "what
 * changed" or "the latest updates" speak about changes without asking for one.
 */
export function requestVerbs(text: string): RequestVerbs {
  const changing: string[] = [];
  const looking: string[] = [];
  for (const word of plainWords(scanMessage(text))) {
    const actions = verbActions(word);
    if (actions.some(changesThings)) changing.push(word);
    else if (actions.length > 0) looking.push(word);
  }
  return { changing, looking };
}
