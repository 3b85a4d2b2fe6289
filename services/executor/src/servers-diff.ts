import { isDeepStrictEqual } from "node:util";
import type { ServerConfig } from "./servers-config.js";

/** How a new list of servers differs from the running one, server by server (by name). */
export interface ServersDiff {
  /** Only in the new list. */
  added: ServerConfig[];
  /** In both lists with any setting different, as the new list has them. */
  changed: ServerConfig[];
  /** Only in the running list, as it has them. */
  removed: ServerConfig[];
}

/** Compares two server lists; a server whose settings are all equal is in none of the three. */
export function diffServers(running: readonly ServerConfig[], wanted: readonly ServerConfig[]): ServersDiff {
  const before = new Map(running.map((server) => [server.name, server]));
  const kept = new Set(wanted.map((server) => server.name));
  return {
    added: wanted.filter((server) => !before.has(server.name)),
    changed: wanted.filter((server) => {
      const old = before.get(server.name);
      return old !== undefined && !isDeepStrictEqual(old, server);
    }),
    removed: running.filter((server) => !kept.has(server.name)),
  };
}
