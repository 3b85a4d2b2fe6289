import type { KV } from "@nats-io/kv";
import { catalogKey, followBucket, isWriteConflict } from "@switchyard/bus";
import { decodeToolExamples, emptyExamples, encodeToolExamples } from "./tool-examples.js";
import type { ToolExamples } from "./tool-examples.js";
import { SHARED } from "./owners.js";

/** Attempts at a read-modify-write before giving up; only concurrent writers to the same tool need more than one. */
const MAX_ATTEMPTS = 25;
/** Longest random pause before a retry, so that writers that collided do not collide again in lockstep. */
const MAX_BACKOFF_MS = 20;

// Catalog keys escape "=" as "=3d", so no catalog key starts "=s/" or "=t/": keys of records
// written before examples had owners (the bare catalog key) are told apart from these.
const SHARED_PREFIX = "=s/";
const TENANT_PREFIX = "=t/";

/**
 * The bucket key of one owner's examples of a tool: "=s/<tool>" for the shared ones,
 * "=t/<tenant>/<tool>" for a tenant's, the tool as its catalog key. A tenant's dots are
 * escaped ("a..b" would make an empty subject token), tenants have no "=" or "/".
 */
export function examplesKey(tool: string, tenant: string): string {
  return tenant === SHARED ? `${SHARED_PREFIX}${catalogKey(tool)}` : `${TENANT_PREFIX}${tenant.replaceAll(".", "=2e")}/${catalogKey(tool)}`;
}

/**
 * Whether a key holds owned examples. Records from before examples had owners sit under the
 * bare catalog key: which tenant taught them is unknown, so they are never read, neither
 * routed with nor shown (docs/security.md says why they are not made shared).
 */
export function isOwnedExamplesKey(key: string): boolean {
  return key.startsWith(SHARED_PREFIX) || key.startsWith(TENANT_PREFIX);
}

/** An owner's stored examples of a tool; none when the bucket has no entry for them. */
export async function readToolExamples(bucket: KV, tool: string, tenant: string): Promise<ToolExamples> {
  const entry = await bucket.get(examplesKey(tool, tenant));
  return entry?.operation === "PUT" ? decodeToolExamples(entry.value, tool, tenant) : emptyExamples(tool, tenant);
}

/**
 * Changes an owner's stored examples of a tool: reads them, applies `change` (undefined:
 * nothing to write) and writes back only if nobody wrote in between (the entry's revision),
 * retrying otherwise, so replicas and gateways may write at once. Returns the examples as
 * stored afterwards.
 */
export async function updateToolExamples(
  bucket: KV,
  tool: string,
  tenant: string,
  change: (current: ToolExamples) => ToolExamples | undefined,
): Promise<ToolExamples> {
  const key = examplesKey(tool, tenant);
  for (let attempt = 1; ; attempt++) {
    const entry = await bucket.get(key);
    const current = entry?.operation === "PUT" ? decodeToolExamples(entry.value, tool, tenant) : emptyExamples(tool, tenant);
    const next = change(current);
    if (next === undefined) return current;
    try {
      if (entry) await bucket.update(key, encodeToolExamples(next), entry.revision);
      else await bucket.create(key, encodeToolExamples(next));
      return next;
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isWriteConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_BACKOFF_MS));
    }
  }
}

/** Every owner's examples of every tool, kept in step with the examples bucket. */
export interface FollowedExamples {
  /** A tool's stored records by owner (SHARED, or a tenant); empty for a tool with none. */
  of(tool: string): ReadonlyMap<string, ToolExamples>;
  /** How many records from before examples had owners the bucket holds; they are ignored. */
  readonly unowned: number;
  stop(): void;
}

/**
 * Loads every owned record of the bucket, then follows every change, calling `changed` with
 * the tool's catalog name after each (see `followBucket`).
 */
export async function followExamples(bucket: KV, changed: (tool: string) => void = () => undefined): Promise<FollowedExamples> {
  const byTool = new Map<string, Map<string, ToolExamples>>();
  /** Each key's record, so that a deleted key's tool and owner are known. */
  const byKey = new Map<string, ToolExamples>();
  const unowned = new Set<string>();
  const drop = (key: string): string | undefined => {
    const record = byKey.get(key);
    if (!record) return undefined;
    byKey.delete(key);
    const owned = byTool.get(record.tool);
    owned?.delete(record.tenant);
    if (owned?.size === 0) byTool.delete(record.tool);
    return record.tool;
  };
  const follower = await followBucket(bucket, (bytes, key) => (isOwnedExamplesKey(key) ? decodeToolExamples(bytes) : undefined), {
    upsert(examples, key) {
      if (!examples) return void unowned.add(key);
      // A record that moved to another tool or owner under the same key: the old one goes.
      const before = drop(key);
      if (before !== undefined && before !== examples.tool) changed(before);
      if (examples.tool === "") return;
      byKey.set(key, examples);
      let owned = byTool.get(examples.tool);
      if (!owned) byTool.set(examples.tool, (owned = new Map()));
      owned.set(examples.tenant, examples);
      changed(examples.tool);
    },
    remove(key) {
      unowned.delete(key);
      const tool = drop(key);
      if (tool !== undefined) changed(tool);
    },
  });
  return {
    of: (tool) => byTool.get(tool) ?? NONE,
    get unowned() {
      return unowned.size;
    },
    stop: () => follower.stop(),
  };
}

const NONE: ReadonlyMap<string, ToolExamples> = new Map();
