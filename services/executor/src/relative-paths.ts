/**
 * Paths in what callers see, relative to the directories a server serves. The filesystem
 * server answers with absolute paths on the executor's machine ("ENOENT: no such file or
 * directory, open '/srv/switchyard/workspace/notes/todo.md'"): they tell a caller about the
 * server's disk and are no path it could send. A root becomes ".", a path under it
 * "notes/todo.md", as a tool call names it; a path outside every root (a symlink's target,
 * /root/.bashrc, the server's cwd) is named only as such.
 */
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import type { ToolCallResult } from "./mcp-pool.js";
import type { ServerConfig } from "./servers-config.js";

/**
 * The directories a server serves: the arguments of a stdio server that name existing
 * directories (server-filesystem's allowed directories), resolved against its cwd, each also
 * as its real path, which is how the server reports it (/tmp/ws may be /private/tmp/ws).
 * The executor offers no MCP roots, so these are all a server is given. "/" is left out:
 * every absolute path is under it.
 */
export function servedRoots(server: ServerConfig): string[] {
  if (server.transport !== "stdio") return [];
  const cwd = server.cwd ?? process.cwd();
  const directories = server.args.map((arg) => resolve(cwd, arg)).filter(isDirectory);
  const roots = directories.flatMap((directory) => [directory, realpathSync(directory)]);
  return [...new Set(roots)].filter((root) => root !== "/");
}

/**
 * `servedRoots` by server name among the servers `current()` lists (the servers file may
 * change while the executor runs), worked out once per server config.
 */
export function rootsByServer(current: () => readonly ServerConfig[]): (server: string) => readonly string[] {
  const known = new WeakMap<ServerConfig, string[]>();
  return (name) => {
    const server = current().find((candidate) => candidate.name === name);
    if (!server) return [];
    const roots = known.get(server) ?? servedRoots(server);
    known.set(server, roots);
    return roots;
  };
}

/**
 * A tool call's result with every path under `roots` in its error and output (strings at any
 * depth) made relative, and no path outside them: the error names none at all, and the output
 * none in the server's refusals (read_multiple_files quotes them beside the files it read).
 * The rest of the output is left as it is, since a file's content may name any path.
 */
export function withRelativePaths(result: ToolCallResult, roots: readonly string[]): ToolCallResult {
  if (roots.length === 0) return result;
  const rewrite = (text: string) => relativeToRoots(withoutDeniedPaths(text), roots);
  return {
    ...result,
    output: mapStrings(result.output, rewrite),
    ...(result.error === undefined ? {} : { error: withoutOutsidePaths(rewrite(result.error)) }),
  };
}

// What a path starts after and ends before in a message: whitespace, a quote, a bracket, punctuation.
const DELIMITER = String.raw`[\s'"\`,;:=()[\]{}<>]`;

/**
 * `text` with each path under one of `roots` written relative to that root, the root itself
 * as ".". A root matches only as a whole path and whole segments: not in /srv/ws2/a.md nor in
 * /home/srv/ws. The longest root wins, so a root inside another names its paths from itself.
 */
export function relativeToRoots(text: string, roots: readonly string[]): string {
  if (roots.length === 0) return text;
  return text.replace(rootsPattern(roots), (_match, under: string | undefined) => (under ? "" : "."));
}

/** What a path outside every served directory is called in what callers see. */
export const OUTSIDE_PATH = "(a path outside the allowed directories)";

// server-filesystem's refusals, "Access denied - path outside allowed directories: <path> not in
// <its roots>" and "… symlink target outside …": the path may hold spaces, so the whole tail goes.
const DENIED = /(outside allowed directories): .*? not in .*$/gm;

/** `text` without the paths of server-filesystem's refusals: "Access denied - symlink target outside allowed directories". */
export function withoutDeniedPaths(text: string): string {
  return text.replace(DENIED, "$1");
}

// An absolute path: within quotes, up to the closing quote (Node's "open '/a b/c.md'"); else up to
// a delimiter. Not "//" (a URL's), and not a lone "/", which names nothing.
const QUOTED_PATH = /(['"`])\/(?![/\s])[^'"`\n]*\1/g;
const BARE_PATH = new RegExp(String.raw`(?<=^|${DELIMITER})/(?![/\s])[^\s'"\`,;:()[\]{}<>]+`, "gm");

/** `text` with every absolute path in it named OUTSIDE_PATH: for texts that are a server's words only, such as errors. */
export function withoutOutsidePaths(text: string): string {
  return text.replace(QUOTED_PATH, (_path, quote: string) => `${quote}${OUTSIDE_PATH}${quote}`).replace(BARE_PATH, OUTSIDE_PATH);
}

/** One pattern per list of roots (rootsByServer keeps one list per server config), not one per call. */
const patterns = new WeakMap<readonly string[], RegExp>();

function rootsPattern(roots: readonly string[]): RegExp {
  let pattern = patterns.get(roots);
  if (!pattern) {
    const alternatives = [...roots].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|");
    const end = `(?:${DELIMITER}|$)`;
    pattern = new RegExp(`(?<=^|${DELIMITER})(?:${alternatives})(?:(/)(?!${end})|/?(?=${end}))`, "g");
    patterns.set(roots, pattern);
  }
  return pattern;
}

function mapStrings(value: JsonValue, rewrite: (text: string) => string): JsonValue {
  if (typeof value === "string") return rewrite(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, rewrite));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, rewrite)]));
  }
  return value;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
