import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { KvWatchInclude } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";

// KV keys allow only [-/_=.a-zA-Z0-9]; any other character of a tool name is
// written as "=" and its hex code, so every name has one key and names stay readable.
const KEY_UNSAFE = /[^-/_.a-zA-Z0-9]/g;

/** The flag of a catalog tool its MCP server no longer serves (retired: quarantined, its pin kept). */
export const NOT_SERVED = "no longer served by its MCP server";

export function catalogKey(toolName: string): string {
  return toolName.replace(KEY_UNSAFE, (c) => `=${c.codePointAt(0)!.toString(16)}`);
}

export async function putTool(catalog: KV, tool: ToolDefinition): Promise<void> {
  await catalog.put(catalogKey(tool.name), toBinary(ToolDefinitionSchema, tool));
}

export async function removeTool(catalog: KV, toolName: string): Promise<void> {
  await catalog.delete(catalogKey(toolName));
}

export async function listTools(catalog: KV): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  for await (const key of await catalog.keys()) {
    const entry = await catalog.get(key);
    if (entry?.operation === "PUT") tools.push(fromBinary(ToolDefinitionSchema, entry.value));
  }
  return tools;
}

export interface CatalogListener {
  upsert(tool: ToolDefinition): void;
  remove(key: string): void;
}

/** Loads the whole catalog into the listener, then follows every change (see {@link followBucket}). */
export function followCatalog(catalog: KV, listener: CatalogListener): Promise<{ stop(): void }> {
  return followBucket(catalog, (bytes) => fromBinary(ToolDefinitionSchema, bytes), listener);
}

/** A process's copy of the catalog, kept in step with its bucket: lookups without a NATS round trip. */
export interface CatalogMirror {
  /** The entry of a tool name; it may trail a write to the bucket by the time the watch takes to tell. */
  get(name: string): ToolDefinition | undefined;
  all(): Iterable<ToolDefinition>;
  stop(): void;
}

export async function mirrorCatalog(catalog: KV): Promise<CatalogMirror> {
  const tools = new Map<string, ToolDefinition>();
  const follower = await followCatalog(catalog, {
    upsert: (tool) => tools.set(catalogKey(tool.name), tool),
    remove: (key) => tools.delete(key),
  });
  return { get: (name) => tools.get(catalogKey(name)), all: () => tools.values(), stop: () => follower.stop() };
}

export interface BucketListener<T> {
  upsert(value: T, key: string): void;
  remove(key: string): void;
}

/**
 * Loads every value of a bucket into the listener, then follows every change.
 * The watch starts before the load so that no change in between is missed;
 * replaying one twice is harmless because upserts are idempotent.
 */
export async function followBucket<T>(
  bucket: KV,
  decode: (bytes: Uint8Array, key: string) => T,
  listener: BucketListener<T>,
): Promise<{ stop(): void }> {
  const watch = await bucket.watch({ include: KvWatchInclude.UpdatesOnly });
  for await (const key of await bucket.keys()) {
    const entry = await bucket.get(key);
    if (entry?.operation === "PUT") listener.upsert(decode(entry.value, key), key);
  }
  void (async () => {
    for await (const entry of watch) {
      if (entry.operation === "PUT") listener.upsert(decode(entry.value, entry.key), entry.key);
      else listener.remove(entry.key);
    }
  })();
  return { stop: () => watch.stop() };
}
