import { diffLines } from "diff";
import { prettyJson } from "./format.js";

/** A definition as the lines a person compares: its description, then its input schema as JSON. */
export function definitionText(description: string | undefined, inputSchema: unknown): string {
  return `${description ?? ""}\n\ninput schema:\n${prettyJson(inputSchema ?? {})}\n`;
}

/** One row of the side-by-side view: a pinned line, a served line, or both when unchanged. */
export interface Row {
  pinned?: string;
  served?: string;
  changed: boolean;
}

/** The line diff (jsdiff) laid out side by side: a removed block faces the added block after it. */
export function sideBySide(pinned: string, served: string): Row[] {
  const rows: Row[] = [];
  let removed: string[] = [];
  const flush = (added: string[]) => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) rows.push({ pinned: removed[i], served: added[i], changed: true });
    removed = [];
  };
  for (const change of diffLines(pinned, served)) {
    const lines = change.value.replace(/\n$/, "").split("\n");
    if (change.removed) removed.push(...lines);
    else if (change.added) flush(lines);
    else {
      flush([]);
      for (const line of lines) rows.push({ pinned: line, served: line, changed: false });
    }
  }
  flush([]);
  return rows;
}
