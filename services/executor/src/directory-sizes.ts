/**
 * server-filesystem's list_directory_with_sizes stats each entry through its symlinks, so a link
 * in a served directory to a file outside every one shows that file's size (and sorts by it).
 * The executor lists the directory again itself, in the server's format, with those sizes left
 * out; the server's answer only says the listing was allowed.
 */
import { readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";
import type { JsonObject } from "@bufbuild/protobuf";
import type { ToolCallResult } from "./mcp-pool.js";

/** The tool whose answer this module writes again, by the name its server lists it under. */
export const LIST_WITH_SIZES = "list_directory_with_sizes";

/** In place of the size of a symlink's target outside every served directory. */
export const HIDDEN_SIZE = "(links outside the allowed directories)";

interface Entry {
  name: string;
  isDirectory: boolean;
  /** Undefined for a symlink whose target is outside every root. */
  size: number | undefined;
}

/**
 * A successful list_directory_with_sizes result (`args` as the call had them) listed again
 * within `roots`: entries that are symlinks out of them show no size and count none in the total.
 * A listing that cannot be made again fails, rather than show the server's.
 */
export async function withoutOutsideSizes(result: ToolCallResult, roots: readonly string[], args: JsonObject): Promise<ToolCallResult> {
  if (!result.success || roots.length === 0) return result;
  const structured = typeof result.output === "object" && result.output !== null && !Array.isArray(result.output);
  try {
    const listing = await listWithin(typeof args["path"] === "string" ? args["path"] : "", args["sortBy"] === "size", roots);
    return { ...result, output: structured ? { ...(result.output as JsonObject), content: listing } : listing };
  } catch (error) {
    return { ...result, success: false, output: null, error: `the listing's sizes could not be checked: ${(error as Error).message}`, failure: "tool_error" };
  }
}

async function listWithin(path: string, bySize: boolean, roots: readonly string[]): Promise<string> {
  const directory = await realpath(requestedPath(path, roots));
  if (!within(directory, roots)) throw new Error(`${path} is outside the allowed directories`);
  const entries = await readdir(directory, { withFileTypes: true });
  const detailed = await Promise.all(
    entries.map(async (entry): Promise<Entry> => {
      const entryPath = join(directory, entry.name);
      // A dangling link has no target to tell of: the server shows it as 0 bytes, and so do we.
      const target = await realpath(entryPath).catch(() => undefined);
      if (target !== undefined && !within(target, roots)) return { name: entry.name, isDirectory: entry.isDirectory(), size: undefined };
      const stats = await stat(entryPath).catch(() => undefined);
      return { name: entry.name, isDirectory: entry.isDirectory(), size: stats?.size ?? 0 };
    }),
  );
  // As the server writes it (server-filesystem's index.ts, list_directory_with_sizes).
  const sorted = [...detailed].sort((a, b) => (bySize ? (b.size ?? 0) - (a.size ?? 0) : a.name.localeCompare(b.name)));
  const lines = sorted.map((entry) => {
    const size = entry.isDirectory ? "" : entry.size === undefined ? HIDDEN_SIZE : formatSize(entry.size).padStart(10);
    return `${entry.isDirectory ? "[DIR]" : "[FILE]"} ${entry.name.padEnd(30)} ${size}`;
  });
  const files = detailed.filter((entry) => !entry.isDirectory);
  const total = files.reduce((sum, entry) => sum + (entry.size ?? 0), 0);
  return [...lines, "", `Total: ${files.length} files, ${detailed.length - files.length} directories`, `Combined size: ${formatSize(total)}`].join("\n");
}

/** The absolute path the server makes of a requested one: "~" is the home folder, a relative path is under the first root it stays in. */
function requestedPath(path: string, roots: readonly string[]): string {
  const expanded = path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
  if (isAbsolute(expanded)) return resolve(expanded);
  return roots.map((root) => resolve(root, expanded)).find((candidate) => within(candidate, roots)) ?? resolve(roots[0]!, expanded);
}

function within(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
}

/** Bytes as server-filesystem writes them: "0 B", "512 B", "12.06 KB". */
function formatSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  if (bytes <= 0) return "0 B";
  const unit = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1);
  return unit <= 0 ? `${bytes} B` : `${(bytes / 1024 ** unit).toFixed(2)} ${units[unit]}`;
}
