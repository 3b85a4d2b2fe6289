/**
 * A later step inherits the folders earlier steps worked in: in "list the notes folder, then
 * read todo.md" step 2 names a bare file, which step 1's listing showed inside notes/. A path
 * argument that is a bare name (no folder) becomes <folder>/<name> when an earlier step of the
 * same packet was called with that folder and its result lists the name. Nothing is guessed:
 * a name no earlier result lists, or that several folders list, stays as the request wrote it.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { contentOf, fromValue, TOOL_RESULT_FIELD } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";

/** What an earlier step of the packet ran in a folder, and what its result says. */
export interface EarlierStep {
  /** The folder the call was made with (its path-like arguments). */
  folders: string[];
  /** The call's output as text. */
  output: string;
}

// An argument that holds a path: "path", "file", "directory", "source", … ("paths" holds several).
const PATH_ARGUMENT = /^(?:path|file|filename|filepath|directory|dir|folder|source|src|destination|dest)$/i;

/** The successful tool results of the packet's earlier steps, with the folders their calls named. */
export function earlierSteps(packet: Packet): EarlierStep[] {
  const out: EarlierStep[] = [];
  for (const field of contentOf(packet).dataFields) {
    if (field.key !== TOOL_RESULT_FIELD) continue;
    const value = fromValue(field.value);
    if (!isObject(value) || value["success"] !== true || value["dryRun"] === true) continue;
    const params = isObject(value["params"]) ? value["params"] : {};
    const folders = Object.entries(params)
      .filter(([name, v]) => PATH_ARGUMENT.test(name) && typeof v === "string" && v.trim() !== "")
      .map(([, v]) => trimSlashes(v as string))
      // a folder, not a file: a file's text is no listing ("notes", not "notes/todo.md")
      .filter((path) => !/\.[A-Za-z0-9]{1,5}$/.test(path.split("/").at(-1) ?? ""));
    if (folders.length > 0) out.push({ folders, output: JSON.stringify(value["output"] ?? "") });
  }
  return out;
}

/**
 * The arguments with each bare-name path argument resolved against the earlier steps (module
 * comment); the same object when nothing changed. `resolved` names what was changed, for the
 * reasoning.
 */
export function inheritFolders(params: JsonObject, earlier: readonly EarlierStep[]): { params: JsonObject; resolved: string[] } {
  if (earlier.length === 0) return { params, resolved: [] };
  const next: JsonObject = { ...params };
  const resolved: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (!PATH_ARGUMENT.test(name) || typeof value !== "string" || !isBareName(value)) continue;
    const listedIn = new Set(earlier.filter((step) => lists(step.output, value)).flatMap((step) => step.folders));
    if (listedIn.size !== 1) continue;
    const [folder] = listedIn;
    if (folder === undefined || folder === "" || folder === ".") continue;
    next[name] = `${folder}/${value}`;
    resolved.push(`${name} ${value} → ${next[name] as string} (listed by an earlier step)`);
  }
  return resolved.length > 0 ? { params: next, resolved } : { params, resolved };
}

/** A file or folder name with no folder in front: "todo.md", not "notes/todo.md" or "/tmp/x". */
function isBareName(value: string): boolean {
  const v = value.trim();
  return v !== "" && v !== "." && v !== ".." && !/[/\\]/.test(v);
}

/** Whether a listing's text holds `name` as a whole entry ("[FILE] todo.md", "todo.md\n", "\"todo.md\""). */
function lists(output: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s"\\]/]|\\\\n)${escaped}(?=$|[\\s",]|\\\\n|/)`).test(output);
}

function trimSlashes(path: string): string {
  return path.trim().replace(/\/+$/, "");
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
