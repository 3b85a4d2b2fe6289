import { create } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { catalogKey, followCatalog } from "@switchyard/bus";
import { followExamples, withIndexedExamples } from "@switchyard/learning";
import type { FollowedExamples, ToolExamples } from "@switchyard/learning";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import { catalogStats, withoutTenantExamples } from "@switchyard/retrieval";
import type { CatalogStats, ToolIndex } from "@switchyard/retrieval";

export interface CatalogIndex {
  /** The catalog's core tools, always offered whatever the query. */
  core(): ToolDefinition[];
  /** Every tool in the catalog: what the router offers when it cannot search (see fallback.ts). */
  all(): ToolDefinition[];
  /** Whether the catalog has a tool of this name. */
  has(name: string): boolean;
  /** The catalog's statistics for the tool-need gate, recomputed only after the catalog changed. */
  stats(): CatalogStats;
  stop(): void;
}

/**
 * Keeps the index in step with the catalog bucket: the whole catalog at start,
 * then every change. With the examples bucket, each tool is indexed with its
 * stored examples (learned from use, added by hand): the shared ones after its
 * own, each tenant's as its `tenantExamples`, which count in that tenant's
 * searches alone; a change of a tool's examples re-indexes that tool. The index re-embeds only tools
 * whose content changed. Quarantined tools are left out, as if removed, and a tool's
 * pinned definition (the executor's record, tool-pin.ts) is not kept. Resolves once
 * the catalog as it was at start is indexed.
 */
export async function indexCatalog(
  catalog: KV,
  index: ToolIndex,
  logger: Logger,
  examples?: KV,
  options: {
    retryMs?: number;
    /** Failures someone else reports (the embeddings endpoint's outage, logged once by its DependencyHealth): logged at debug. */
    reportedElsewhere?: (error: unknown) => boolean;
  } = {},
): Promise<CatalogIndex> {
  // A tool that fails to index (the embeddings endpoint is down) is tried
  // again with backoff, so the router does not stay without it until the
  // catalog happens to change.
  const retryMs = options.retryMs ?? 5000;
  const retries = new Map<string, NodeJS.Timeout>();
  const core = new Map<string, ToolDefinition>();
  /** By name, as handed out: the catalog's definition with the shared stored examples, never a tenant's. */
  const tools = new Map<string, ToolDefinition>();
  /** By catalog key, as the catalog has them. */
  const listed = new Map<string, ToolDefinition>();
  /** By name, the definition last sent to the index, with every tenant's examples. */
  const latest = new Map<string, ToolDefinition>();
  /** The catalog as last handed out by `stats`; cleared by every change. */
  let snapshot: ToolDefinition[] | undefined;
  let loading = true;
  const pending: Promise<unknown>[] = [];
  const track = (work: Promise<unknown>, what: string) => {
    const logged = work.catch((error: unknown) => logger.error({ err: error }, `catalog ${what} failed`));
    if (loading) pending.push(logged);
  };
  const put = (key: string) => {
    const tool = listed.get(key);
    if (!tool) return;
    const indexed = withIndexedExamples(tool, stored?.of(tool.name) ?? new Map<string, ToolExamples>());
    const merged = withoutTenantExamples(indexed);
    tools.set(tool.name, merged);
    snapshot = undefined;
    if (tool.core) core.set(tool.name, merged);
    else core.delete(tool.name);
    upsert(key, indexed, 0);
  };
  const upsert = (key: string, tool: ToolDefinition, attempt: number) => {
    latest.set(tool.name, tool);
    clearTimeout(retries.get(key));
    retries.delete(key);
    const work = index.upsert([tool]).then(
      () => undefined,
      (error: unknown) => {
        const delay = Math.min(60_000, retryMs * 2 ** attempt);
        const level = options.reportedElsewhere?.(error) ? "debug" : "warn";
        logger[level]({ err: error, tool: tool.name, retryInMs: delay }, "indexing a tool failed; it will be tried again");
        const timer = setTimeout(() => {
          retries.delete(key);
          // Only if no newer version of the tool has been indexed meanwhile.
          if (latest.get(tool.name) === tool) upsert(key, tool, attempt + 1);
        }, delay);
        timer.unref();
        retries.set(key, timer);
      },
    );
    if (loading) pending.push(work);
  };
  // Examples first, so that the catalog's first load indexes each tool once, with them.
  // put() reads `stored` only for a tool of the catalog, and the catalog is followed after it.
  const stored: FollowedExamples | undefined = examples ? await followExamples(examples, (tool) => put(catalogKey(tool))) : undefined;
  if (stored?.unowned) {
    logger.warn({ records: stored.unowned }, "example records from before examples had owners are ignored: which tenant taught them is unknown (docs/security.md)");
  }
  const drop = (key: string) => {
    const tool = listed.get(key);
    if (tool === undefined) return;
    listed.delete(key);
    tools.delete(tool.name);
    latest.delete(tool.name);
    snapshot = undefined;
    core.delete(tool.name);
    track(index.remove(tool.name), `removal of ${tool.name}`);
  };
  const follower = await followCatalog(catalog, {
    upsert(tool) {
      const key = catalogKey(tool.name);
      // A quarantined tool (the executor's tool pinning) is never routed: it leaves the index until approved.
      if (tool.quarantined) return drop(key);
      // A routed tool's pinned definition is its own description and schema again: route answers leave the copy out.
      listed.set(key, tool.pinned ? create(ToolDefinitionSchema, { ...tool, pinned: undefined }) : tool);
      put(key);
    },
    remove: drop,
  });
  await Promise.all(pending);
  loading = false;
  pending.length = 0;
  return {
    core: () => [...core.values()],
    all: () => [...tools.values()],
    has: (name) => tools.has(name),
    stats: () => catalogStats((snapshot ??= [...tools.values()])),
    stop: () => {
      for (const timer of retries.values()) clearTimeout(timer);
      follower.stop();
      stored?.stop();
    },
  };
}
