/**
 * "and the other one?" after "read notes/todo.md" asks for the other file the conversation
 * showed: of the files the recent results listed (assistant and tool turns), the one the
 * user's recent turns did not name. Nothing is guessed: when no such file, or several, are
 * left, the step has no value of its own and the review asks for it.
 */
import { Turn_Role } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { asksForAnother } from "./query.js";
import { pathKindOf } from "./text-views.js";
import { trimToken } from "./tokens.js";

/** How many of the latest turns the other object is looked for in. */
const LOOK_BACK = 6;

/**
 * The path "the other one" refers to in `step`, from the latest turns of `history` (oldest
 * first); undefined when the step asks for nothing else, or the turns leave no single answer.
 * A bare name from a listing takes the folder of the path the user named ("notes/todo.md",
 * then a listing "todo.md ideas.md": notes/ideas.md).
 */
export function otherObject(step: string, history: readonly Turn[]): string | undefined {
  if (!asksForAnother(step)) return undefined;
  const recent = history.slice(-LOOK_BACK);
  const named = recent.filter((t) => t.role === Turn_Role.USER).flatMap((t) => pathsIn(t.content));
  const namedNames = new Set(named.map(baseName));
  const shown = new Set(recent.filter((t) => t.role === Turn_Role.ASSISTANT || t.role === Turn_Role.TOOL).flatMap((t) => pathsIn(t.content)));
  const others = [...shown].filter((path) => !namedNames.has(baseName(path)));
  if (others.length !== 1) return undefined;
  const other = others[0]!;
  if (other.includes("/")) return other;
  const folder = named.at(-1)?.split("/").slice(0, -1).join("/");
  return folder ? `${folder}/${other}` : other;
}

/** The path-like tokens of a text ("notes/todo.md", "[FILE] ideas.md" → ideas.md), links left out. */
function pathsIn(text: string): string[] {
  return text
    .split(/\s+/)
    .filter((raw) => pathKindOf(raw) === "path")
    .map((raw) => trimToken(raw).value.replace(/\/+$/, ""));
}

function baseName(path: string): string {
  return path.split("/").at(-1) ?? path;
}
