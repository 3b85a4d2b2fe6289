import { equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { catalogKey, listTools, NOT_SERVED, retryWhileTransient } from "@switchyard/bus";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import { pinTool, retireTool } from "./tool-pin.js";

/** How long a catalog sync is tried again while JetStream cannot answer. */
const SYNC_RETRY_MS = 60_000;

/** Tries of a compare-and-set write before giving up; each retry re-reads the entry another writer changed. */
const WRITE_ATTEMPTS = 5;

/**
 * Makes the catalog hold `tools` for the given servers, each pinned against the entry the
 * catalog already holds (tool-pin.ts): a tool whose definition changed since it was
 * pinned is written quarantined. Entries of these servers whose tool is gone are retired,
 * not deleted: quarantined with their pin kept, so a server cannot drop a tool and bring
 * it back changed to be trusted on first use again. Entries of other servers, from other
 * executors or static tool files, are left alone. The new tools of the `reviewed` servers
 * (`trust: review`) wait for approval. Returns the tools retired and those quarantined now.
 */
export async function syncCatalog(
  catalog: KV,
  servers: string[],
  tools: ToolDefinition[],
  reviewed: ReadonlySet<string> = new Set(),
): Promise<{ retired: string[]; quarantined: string[] }> {
  const current = new Set(tools.map((tool) => tool.name));
  const quarantined: string[] = [];
  for (const tool of tools) {
    const trust = reviewed.has(tool.server) ? "review" : "first-use";
    const written = await updateTool(catalog, tool.name, (stored) => pinTool(tool, stored, trust));
    if (written.quarantined) quarantined.push(tool.name);
  }
  const retired: string[] = [];
  for (const entry of await listTools(catalog)) {
    if (servers.includes(entry.server) && !current.has(entry.name) && !entry.flags.includes(NOT_SERVED)) {
      await updateTool(catalog, entry.name, (stored) => retireTool(stored ?? entry));
      retired.push(entry.name);
    }
  }
  return { retired, quarantined };
}

/**
 * syncCatalog for the servers and tools `served()` returns when it runs, as a function to
 * call after every change of the servers; `removed` names servers taken out since, whose
 * entries are retired. Syncs run one at a time, so one that read the servers earlier never
 * lands after a later one (and brings a removed server's tools back).
 */
export function catalogPublisher(
  catalog: KV,
  served: () => { servers: string[]; tools: ToolDefinition[]; reviewed: ReadonlySet<string> },
  logger: Pick<Logger, "warn">,
): (removed?: string[]) => Promise<void> {
  let queue = Promise.resolve();
  return (removed = []) => {
    const run = queue.then(async () => {
      const { servers, tools, reviewed } = served();
      // A sync is idempotent, so one that JetStream could not answer (an election) is simply run again.
      const { quarantined } = await retryWhileTransient(() => syncCatalog(catalog, [...servers, ...removed], tools, reviewed), SYNC_RETRY_MS);
      if (quarantined.length > 0) logger.warn({ tools: quarantined }, "tools quarantined until approved (POST /v1/tools/{name}/approve)");
    });
    // The next sync waits for this one, whether it failed or not.
    queue = run.catch(() => undefined);
    return run;
  };
}

/** The catalog's entry for a tool; undefined when there is none (or it was removed). */
export async function readTool(catalog: KV, name: string): Promise<ToolDefinition | undefined> {
  const entry = await catalog.get(catalogKey(name));
  return entry?.operation === "PUT" ? fromBinary(ToolDefinitionSchema, entry.value) : undefined;
}

/**
 * Writes `next(stored)` with compare-and-set on the entry's revision, so that an approval
 * and a sync (possibly on another executor) cannot overwrite each other's decision; an
 * unchanged entry is not written again. Returns the entry as written.
 */
export async function updateTool(
  catalog: KV,
  name: string,
  next: (stored: ToolDefinition | undefined) => ToolDefinition,
): Promise<ToolDefinition> {
  const key = catalogKey(name);
  for (let attempt = 1; ; attempt++) {
    const entry = await catalog.get(key);
    const stored = entry?.operation === "PUT" ? fromBinary(ToolDefinitionSchema, entry.value) : undefined;
    const tool = next(stored);
    if (stored && equals(ToolDefinitionSchema, stored, tool)) return tool;
    const bytes = toBinary(ToolDefinitionSchema, tool);
    try {
      if (entry) await catalog.update(key, bytes, entry.revision);
      else await catalog.create(key, bytes);
      return tool;
    } catch (error) {
      if (attempt >= WRITE_ATTEMPTS) throw error;
    }
  }
}
