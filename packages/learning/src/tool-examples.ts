import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { StoredExample_Source, StoredExampleSchema, TenantExampleSchema, ToolDefinitionSchema, ToolExampleSchema, ToolExamplesSchema } from "@switchyard/packet";
import type { StoredExample, TenantExample, ToolDefinition, ToolExample, ToolExamples } from "@switchyard/packet";
import { maskSecrets } from "@switchyard/telemetry";
import { createHash } from "node:crypto";
import { SHARED } from "./owners.js";

/**
 * One owner's stored example requests of a tool (proto `ToolExamples`, records.proto): those
 * learned from use (a finished packet's query whose tool ran) and those added by hand or by
 * feedback. They live in the examples bucket, one record per owner and tool; the router indexes
 * the shared ones with the tool as if its catalog entry listed them, and a tenant's so that
 * they count for that tenant's requests alone.
 */
export type { StoredExample, ToolExamples };

/** Longest example kept; a longer query is a document, not a request, and is not learned. */
export const EXAMPLE_MAX_CHARS = 500;
/** Hand-added examples kept per tool; beyond it the oldest go. */
export const MAX_ADDED_EXAMPLES_PER_TOOL = 100;
/** Rejected queries remembered per tool; beyond it the oldest are forgotten. */
export const MAX_REJECTED_PER_TOOL = 100;

// Any run of whitespace, newlines included: "read  the\nfile" is stored as "read the file".
const WHITESPACE = /\s+/g;

/**
 * An example as stored: whitespace collapsed, trimmed, and whatever looks like a secret masked
 * as the logs mask it: an example is shown with its tool and may be learned from a request.
 */
export function tidyExample(text: string): string {
  return maskSecrets(text.replace(WHITESPACE, " ").trim());
}

/** What two examples must share to be the same: the tidy text, lower-cased. */
export function exampleKey(text: string): string {
  return tidyExample(text).toLowerCase();
}

/** No examples of `tool`, owned by `tenant` (SHARED: every tenant's). */
export function emptyExamples(tool: string, tenant = SHARED): ToolExamples {
  return create(ToolExamplesSchema, { tool, tenant });
}

/**
 * Learns a query as an example of the tool. Undefined when nothing changes: the
 * query is empty, too long, rejected for this tool, already added by hand, or
 * `max` is 0. A query learned before moves to the end (it is the most recent),
 * and beyond `max` learned examples the oldest learned one goes.
 */
export function learnExample(current: ToolExamples, query: string, max: number, at = new Date()): ToolExamples | undefined {
  const text = tidyExample(query);
  const key = exampleKey(text);
  if (max <= 0 || text === "" || text.length > EXAMPLE_MAX_CHARS || current.rejected.includes(key)) return undefined;
  const same = current.examples.find((e) => exampleKey(e.text) === key);
  if (same && isKept(same)) return undefined;
  // The same words as the newest learned example: nothing would change but its time, and a
  // busy tool asked the same thing by many packets at once would rewrite the entry for each.
  if (same && same.text === text && current.examples.filter((e) => e.source === StoredExample_Source.LEARNED).at(-1) === same) return undefined;
  const examples = current.examples.filter((e) => e !== same);
  examples.push(create(StoredExampleSchema, { text, source: StoredExample_Source.LEARNED, at: timestampFromDate(at) }));
  return { ...current, examples: keepNewest(examples, (e) => e.source === StoredExample_Source.LEARNED, max) };
}

/** Whether an example was given by a person (by hand or by feedback): kept, never evicted by learning. */
function isKept(example: StoredExample): boolean {
  return example.source === StoredExample_Source.ADDED || example.source === StoredExample_Source.FEEDBACK;
}

/**
 * Adds examples by hand (or, with `source` FEEDBACK, from feedback): each is no longer
 * rejected, a learned one becomes kept with the given source, a new one is appended.
 * `added` counts the new ones. Beyond MAX_ADDED_EXAMPLES_PER_TOOL kept ones the oldest go.
 */
export function addExamples(
  current: ToolExamples,
  texts: readonly string[],
  at = new Date(),
  source: StoredExample_Source.ADDED | StoredExample_Source.FEEDBACK = StoredExample_Source.ADDED,
): { next: ToolExamples; added: number } {
  let examples = [...current.examples];
  const rejected = new Set(current.rejected);
  const stamp = timestampFromDate(at);
  let added = 0;
  for (const raw of texts) {
    const text = tidyExample(raw);
    const key = exampleKey(text);
    if (text === "") continue;
    rejected.delete(key);
    const same = examples.findIndex((e) => exampleKey(e.text) === key);
    if (same >= 0) {
      if (!isKept(examples[same]!)) examples[same] = { ...examples[same]!, source };
      continue;
    }
    examples.push(create(StoredExampleSchema, { text, source, at: stamp }));
    added++;
  }
  examples = keepNewest(examples, isKept, MAX_ADDED_EXAMPLES_PER_TOOL);
  return { next: { ...current, examples, rejected: [...rejected] }, added };
}

/** Takes a query away from the tool, learned or added, and remembers it as rejected so it is not learned again. */
export function rejectExample(current: ToolExamples, query: string): ToolExamples {
  const key = exampleKey(query);
  const rejected = [...current.rejected.filter((r) => r !== key), key].slice(-MAX_REJECTED_PER_TOOL);
  return { ...current, examples: current.examples.filter((e) => exampleKey(e.text) !== key), rejected };
}

/**
 * Takes the example with this id (`exampleId`) away and remembers it as rejected, so it is not
 * learned again; undefined when the record has no such example.
 */
export function removeExample(current: ToolExamples, id: string): { next: ToolExamples; removed: StoredExample } | undefined {
  const removed = current.examples.find((e) => exampleId(current.tenant, e.text) === id);
  return removed && { next: rejectExample(current, removed.text), removed };
}

/**
 * An example's id: a hash of its owner and its words as compared (`exampleKey`), so every
 * replica and gateway gives the same example the same id, and two owners' never collide.
 */
export function exampleId(owner: string, text: string): string {
  // An owner has no NUL, so no other owner and text hash the same input.
  return createHash("sha256").update(`${owner}\0${exampleKey(text)}`).digest("hex").slice(0, EXAMPLE_ID_CHARS);
}

/** Hex characters of an example id: 64 bits, unique among any tool's examples. */
export const EXAMPLE_ID_CHARS = 16;

/**
 * A tool's stored examples as `tenant` sees them, each with its id: the shared ones, then the
 * tenant's own, each oldest first (`records`: `FollowedExamples.of`).
 */
export function listedExamples(records: ReadonlyMap<string, ToolExamples>, tenant: string): ToolExample[] {
  const owners = tenant === SHARED ? [SHARED] : [SHARED, tenant];
  return owners.flatMap((owner) =>
    (records.get(owner)?.examples ?? []).map((e) =>
      create(ToolExampleSchema, { id: exampleId(owner, e.text), text: e.text, source: e.source, at: e.at, shared: owner === SHARED }),
    ),
  );
}

/** The example texts, oldest first. */
export function exampleTexts(current: ToolExamples): string[] {
  return current.examples.map((e) => e.text);
}

/** The tool as `tenant` sees it: the stored shared examples and the tenant's own after its own (`byOwner`: `FollowedExamples.of`). */
export function examplesFor(tool: ToolDefinition, byOwner: ReadonlyMap<string, ToolExamples>, tenant: string): ToolDefinition {
  return withExamples(tool, [...ownedTexts(byOwner, SHARED), ...(tenant === SHARED ? [] : ownedTexts(byOwner, tenant))]);
}

/**
 * The tool as the router indexes it: the shared examples after its own, and each tenant's
 * as `tenantExamples`, which lift the tool for that tenant's requests alone. Returned as it
 * is when nothing is added, so its content hash stays the same.
 */
export function withIndexedExamples(tool: ToolDefinition, byOwner: ReadonlyMap<string, ToolExamples>): ToolDefinition {
  const shared = withExamples(tool, ownedTexts(byOwner, SHARED));
  const known = new Set(shared.examples.map(exampleKey));
  const taught: TenantExample[] = [];
  for (const [tenant, record] of byOwner) {
    if (tenant === SHARED) continue;
    const seen = new Set(known);
    for (const text of exampleTexts(record)) {
      const key = exampleKey(text);
      if (key === "" || seen.has(key)) continue;
      seen.add(key);
      taught.push(create(TenantExampleSchema, { tenant, text }));
    }
  }
  return taught.length === 0 ? shared : create(ToolDefinitionSchema, { ...shared, tenantExamples: taught });
}

/**
 * The tool with stored examples after its own, repeats left out. The tool is
 * returned as it is when nothing is added, so its content hash stays the same.
 */
export function withExamples(tool: ToolDefinition, texts: readonly string[]): ToolDefinition {
  const seen = new Set(tool.examples.map(exampleKey));
  const extra: string[] = [];
  for (const text of texts) {
    const key = exampleKey(text);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    extra.push(text);
  }
  if (extra.length === 0) return tool;
  return create(ToolDefinitionSchema, { ...tool, examples: [...tool.examples, ...extra] });
}

export function encodeToolExamples(examples: ToolExamples): Uint8Array {
  return toBinary(ToolExamplesSchema, examples);
}

/** Reads a stored record; anything malformed reads as no examples rather than breaking the router. */
export function decodeToolExamples(bytes: Uint8Array, tool = "", tenant = SHARED): ToolExamples {
  try {
    const examples = fromBinary(ToolExamplesSchema, bytes);
    return examples.tool ? examples : { ...examples, tool, tenant };
  } catch {
    return emptyExamples(tool, tenant);
  }
}

/** One owner's example texts, oldest first; none when it has no record. */
function ownedTexts(byOwner: ReadonlyMap<string, ToolExamples>, owner: string): string[] {
  const record = byOwner.get(owner);
  return record ? exampleTexts(record) : [];
}

/** The examples without the oldest of those `counted` beyond `max` of them. */
function keepNewest(examples: StoredExample[], counted: (example: StoredExample) => boolean, max: number): StoredExample[] {
  let excess = examples.filter(counted).length - max;
  return examples.filter((e) => !(counted(e) && excess-- > 0));
}
