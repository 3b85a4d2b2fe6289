import { createHash } from "node:crypto";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { QdrantClient } from "@qdrant/js-client-rest";
import type { Schemas } from "@qdrant/js-client-rest";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { DEFAULT_BM25 } from "./bm25.js";
import type { Bm25Params } from "./bm25.js";
import type { CorrectedText } from "@switchyard/request-text";
import { catalogVocabulary, learnSpelling } from "./catalog-spelling.js";
import { relatedStems } from "./concepts.js";
import { hash32 } from "./embedder.js";
import type { Embedder } from "./embedder.js";
import { exampleDocuments, tokenize, toolFields, withoutTenantExamples } from "./text.js";
import { DEFAULT_NAME_WEIGHT, DEFAULT_RELATED_WEIGHT, toolContentHash, weightedStems, weightedVector, withIncluded } from "./tool-index.js";
import type { ScoredTool, SearchOptions, ToolFilter, ToolIndex } from "./tool-index.js";

// Request bodies are built by the pure functions below, each typed with the
// client's OpenAPI schema types (`Schemas[...]`), so that a body Qdrant would
// not accept fails to compile, and tests can check them without a server.
// The generated types widen most optional fields to `Record<string, unknown>`,
// so the nested parts (filter, queries) are typed on their own as well.

/** Name of the dense vector: one point per tool text and one per example request. */
export const DENSE_VECTOR = "dense";
/** Name of the sparse vector (BM25 term weights, IDF applied by Qdrant); only on a tool's `tool` point. */
export const SPARSE_VECTOR = "sparse";

/**
 * Payload keys with a keyword index: what request filters and grouping use
 * (tool, pool, domains, tenant), and what the index's own bookkeeping filters
 * on (role, hash), so that it works under Qdrant's strict mode too.
 */
export const INDEXED_PAYLOAD_KEYS = ["tool", "pool", "domains", "tenant", "role", "hash"] as const;

/** @default "switchyard-tools" */
export const DEFAULT_QDRANT_COLLECTION = "switchyard-tools";
/** @default 5000 */
export const DEFAULT_QDRANT_TIMEOUT_MS = 5000;

/**
 * Document length the sparse weights are normalised against, in weighted
 * tokens. Qdrant applies IDF at query time but knows nothing of document
 * length, so the BM25 length part is computed when a tool is indexed, against
 * a fixed average (as fastembed's BM25 does): the shared benchmark catalogs
 * average 13 (MetaTool) to 38 (BFCL), the MCP reference servers 24 to 40.
 */
export const SPARSE_AVERAGE_LENGTH = 30;

/**
 * The `tenant` payload of a tool shared with every tenant. Not a valid tenant name
 * (TENANT_PATTERN), so no key's tenant can collide with it; a tenant filter is then
 * one keyword condition: the tenant or this.
 */
export const SHARED_TENANT = "*";

/** What a point is: the tool's own text (with the sparse vector) or one of its example requests. */
export type PointRole = "tool" | "example";

/** The payload of every point; `definition` is the ToolDefinition, protobuf binary in base64. */
export interface ToolPayload {
  tool: string;
  pool: string;
  domains: string[];
  /** The tenants that may find the tool (its `tenants`), or `[SHARED_TENANT]` for a tool shared with all. */
  tenant: string[];
  /** `storedHash`: what decides whether a tool's points must be written again. */
  hash: string;
  /** The embedder the vectors came from; another one means re-embedding. */
  embedder: string;
  role: PointRole;
  /** Whose point it is: `SHARED_TENANT` for the tool's text and its shared examples, else the tenant that taught the example. */
  owner: string;
  /** An example point's request as taught (its vectors are of the request without its values); absent on a tool point. */
  example?: string;
  definition: string;
  [key: string]: unknown;
}

/** The collection: a named cosine dense vector of the embedder's size and a named sparse vector with the IDF modifier. */
export function collectionBody(dimensions: number, replicationFactor = 1): Schemas["CreateCollection"] {
  const dense: Schemas["VectorParams"] = { size: dimensions, distance: "Cosine" };
  const sparse: Schemas["SparseVectorParams"] = { modifier: "idf" };
  return { vectors: { [DENSE_VECTOR]: dense }, sparse_vectors: { [SPARSE_VECTOR]: sparse }, replication_factor: replicationFactor };
}

/** A keyword index per filtered payload key. */
export function payloadIndexBodies(): Schemas["CreateFieldIndex"][] {
  return INDEXED_PAYLOAD_KEYS.map((key) => ({ field_name: key, field_schema: "keyword" satisfies Schemas["PayloadSchemaType"] }));
}

/**
 * A point's id: a UUID (RFC 4122 version 5 layout) from the SHA-1 of the tool
 * name, the point's role and its index, so re-indexing a tool overwrites its
 * points instead of adding new ones, in every process.
 */
export function pointId(tool: string, role: PointRole, index: number): string {
  const bytes = createHash("sha1").update(`switchyard.tool\0${tool}\0${role}\0${index}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Sparse vector from weighted stems: index = the stem's stable 32-bit hash, colliding stems summed, indices ascending. */
export function sparseVector(weights: ReadonlyMap<string, number>): Schemas["SparseVector"] {
  const byIndex = new Map<number, number>();
  for (const [stem, weight] of weights) {
    if (weight === 0) continue;
    const index = hash32(stem);
    byIndex.set(index, (byIndex.get(index) ?? 0) + weight);
  }
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((i) => byIndex.get(i)!) };
}

export interface SparseOptions {
  /** BM25 term-frequency saturation and length normalisation. @default DEFAULT_BM25 */
  bm25?: Bm25Params;
  /** A word of the tool's name counts this many times. @default DEFAULT_NAME_WEIGHT */
  nameWeight?: number;
  /** @default SPARSE_AVERAGE_LENGTH */
  averageLength?: number;
}

/**
 * A tool's sparse vector: the stems of its name (counted `nameWeight` times),
 * description and parameters, as in the embedded index, each weighted by
 * BM25's term-frequency part; Qdrant multiplies in the IDF. Its examples
 * have vectors of their own (`exampleSparseVector`).
 */
export function toolSparseVector(tool: ToolDefinition, options: SparseOptions = {}): Schemas["SparseVector"] {
  const { k1, b } = options.bm25 ?? DEFAULT_BM25;
  const nameWeight = options.nameWeight ?? DEFAULT_NAME_WEIGHT;
  const f = toolFields(tool);
  const tf = new Map<string, number>();
  let length = 0;
  const fields: [string, number][] = [[f.name, nameWeight], [f.description, 1], [f.parameters, 1]];
  for (const [text, weight] of fields) {
    for (const stem of tokenize(text)) {
      tf.set(stem, (tf.get(stem) ?? 0) + weight);
      length += weight;
    }
  }
  const norm = k1 * (1 - b + (b * length) / (options.averageLength ?? SPARSE_AVERAGE_LENGTH));
  return sparseVector(new Map([...tf].map(([stem, n]) => [stem, (n * (k1 + 1)) / (n + norm)])));
}

/**
 * An example request's sparse vector: each stem at 1, what one occurrence in a
 * document of average length weighs, so that a short example does not
 * outscore tools' own texts for a word or two it shares with a request (the
 * embedded index's resemblance, tool-index.ts).
 */
export function exampleSparseVector(example: string): Schemas["SparseVector"] {
  return sparseVector(new Map(tokenize(example).map((stem) => [stem, 1])));
}

/**
 * What a tool's points are written from: its content (`toolContentHash`) and
 * the points' layout, so that points of an older layout (examples inside the
 * tool's sparse vector, before version 2) are written again.
 */
export function storedHash(tool: ToolDefinition): string {
  return `${toolContentHash(tool)}.${POINT_LAYOUT}`;
}
// 3: every point names its owner (examples tenants taught).
// 4: example points are embedded without their values and carry the example as taught.
const POINT_LAYOUT = 4;

/** A query's sparse vector: each stem once per occurrence, its related words (concepts.ts) at `relatedWeight`. */
export function querySparseVector(query: string, relatedWeight = DEFAULT_RELATED_WEIGHT, context: readonly string[] = []): Schemas["SparseVector"] {
  const stems = weightedStems(query, context);
  const weights = new Map(stems);
  if (relatedWeight > 0) {
    for (const [stem, weight] of stems) {
      for (const related of relatedStems(stem)) if (!stems.has(related)) weights.set(related, Math.max(weights.get(related) ?? 0, Math.min(1, weight) * relatedWeight));
    }
  }
  return sparseVector(weights);
}

/** The payload of one of a tool's points; the definition never carries the examples tenants taught. */
export function toolPayload(tool: ToolDefinition, hash: string, embedder: string, role: PointRole, owner = SHARED_TENANT, example?: string): ToolPayload {
  return {
    ...(example !== undefined ? { example } : {}),
    tool: tool.name,
    pool: tool.pool,
    domains: [...tool.domains],
    tenant: tool.tenants.length > 0 ? [...tool.tenants] : [SHARED_TENANT],
    hash,
    embedder,
    role,
    owner,
    definition: Buffer.from(toBinary(ToolDefinitionSchema, withoutTenantExamples(tool))).toString("base64"),
  };
}

/** The definition a point carries. */
export function definitionOf(payload: Schemas["Payload"] | null | undefined): ToolDefinition | undefined {
  const encoded = payload?.["definition"];
  return typeof encoded === "string" ? fromBinary(ToolDefinitionSchema, Buffer.from(encoded, "base64")) : undefined;
}

/**
 * A tool's points: `vectors[0]` is its whole text and goes on the `tool`
 * point with `sparse`; `vectors[1..]` are its examples (`exampleDocuments`), one
 * `example` point each with the sparse vector of the example without its values, its owner and its text.
 */
export function toolPoints(
  tool: ToolDefinition,
  hash: string,
  embedder: string,
  vectors: readonly Float32Array[],
  sparse: Schemas["SparseVector"],
): Schemas["PointStruct"][] {
  const examples = exampleDocuments(toolFields(tool));
  return vectors.map((vector, i) => {
    const role: PointRole = i === 0 ? "tool" : "example";
    const example = examples[i - 1];
    const named: Record<string, Schemas["Vector"]> = {
      [DENSE_VECTOR]: Array.from(vector),
      [SPARSE_VECTOR]: i === 0 ? sparse : exampleSparseVector(example?.compared ?? ""),
    };
    const payload = toolPayload(tool, hash, embedder, role, example?.owner || SHARED_TENANT, example?.text);
    return { id: pointId(tool.name, role, i === 0 ? 0 : i - 1), vector: named, payload };
  });
}

/** The example a hit is, when it is an example point (`ScoredTool.example`). */
function matchedExample(payload: Schemas["Payload"] | null | undefined): Pick<ScoredTool, "example"> {
  const text = payload?.["example"];
  const owner = payload?.["owner"];
  if (payload?.["role"] !== "example" || typeof text !== "string" || typeof owner !== "string") return {};
  return { example: { text, owner: owner === SHARED_TENANT ? "" : owner } };
}

/** `key` is one of `values` (for an array payload such as `domains`: one of its items is). */
function matchAny(key: string, values: readonly string[]): Schemas["FieldCondition"] {
  const match: Schemas["MatchAny"] = { any: [...values] };
  return { key, match };
}

function matchValue(key: string, value: string): Schemas["FieldCondition"] {
  const match: Schemas["MatchValue"] = { value };
  return { key, match };
}

/**
 * A ToolFilter as a payload filter, the same rules as `matchesFilter`, and whose examples may
 * count (`exampleCounts`): the shared ones, and the searching tenant's own.
 */
export function filterBody(filter: ToolFilter | undefined): Schemas["Filter"] {
  const must: Schemas["FieldCondition"][] = [];
  if (filter?.tools?.length) must.push(matchAny("tool", filter.tools));
  if (filter?.pools?.length) must.push(matchAny("pool", filter.pools));
  if (filter?.domains?.length) must.push(matchAny("domains", filter.domains));
  if (filter?.tenant !== undefined) must.push(matchAny("tenant", [filter.tenant, SHARED_TENANT]));
  must.push(filter?.tenant === undefined ? matchValue("owner", SHARED_TENANT) : matchAny("owner", [filter.tenant, SHARED_TENANT]));
  return { must };
}

/** Every point of one tool. */
export function toolPointsFilter(name: string): Schemas["Filter"] {
  return { must: [matchValue("tool", name)] };
}

/** The points of these tools left from older content: same tool, another hash (e.g. an example that is gone). */
export function staleFilter(current: readonly { name: string; hash: string }[]): Schemas["Filter"] {
  const should: Schemas["Filter"][] = current.map(({ name, hash }) => ({
    must: [matchValue("tool", name)],
    must_not: [matchValue("hash", hash)],
  }));
  return { should };
}

/** Every point of a tool not among `keep` (an empty `keep` selects every point). */
export function othersFilter(keep: readonly string[]): Schemas["Filter"] {
  return keep.length > 0 ? { must_not: [matchAny("tool", keep)] } : {};
}

/** How many points each prefetch fetches for a search of `limit` tools: examples take places too. */
export function prefetchLimit(limit: number): number {
  return Math.max(40, limit * 5);
}

/**
 * The hybrid search: a dense and a sparse prefetch, both under the filter,
 * fused by reciprocal rank fusion, one group per tool (its best point wins:
 * its text or one of its examples). Dense points with no similarity at all
 * (cosine ≤ 0) are left out, as sparse ones sharing no word are. Without a
 * dense vector (`sparseOnly`, the embedder is down) the sparse list alone.
 */
export function hybridQueryBody(
  dense: readonly number[] | undefined,
  sparse: Schemas["SparseVector"],
  opts: SearchOptions,
): Schemas["QueryGroupsRequest"] {
  const filter = filterBody(opts.filter);
  const limit = prefetchLimit(opts.limit);
  const prefetch: Schemas["Prefetch"][] = [];
  if (dense) prefetch.push({ query: [...dense], using: DENSE_VECTOR, limit, score_threshold: Number.EPSILON, filter });
  if (sparse.indices.length > 0) prefetch.push({ query: sparse, using: SPARSE_VECTOR, limit, filter });
  const fusion: Schemas["FusionQuery"] = { fusion: "rrf" };
  return {
    prefetch,
    query: fusion,
    group_by: "tool",
    group_size: 1,
    limit: opts.limit,
    with_payload: ["definition"],
    filter,
  };
}

/**
 * The alias switch, as one request (Qdrant applies alias changes atomically):
 * the alias leaves the collection it named, if it named one, and names `to`.
 */
export function aliasSwitchActions(alias: string, to: string, existed: boolean): Schemas["AliasOperations"][] {
  const add: Schemas["CreateAliasOperation"] = { create_alias: { collection_name: to, alias_name: alias } };
  if (!existed) return [add];
  const remove: Schemas["DeleteAliasOperation"] = { delete_alias: { alias_name: alias } };
  return [remove, add];
}

/** The collection of one generation behind the alias: `switchyard-tools-3`. */
export function generationName(alias: string, generation: number): string {
  return `${alias}-${generation}`;
}

/** The generation a collection name is for, if it is one of the alias's. */
export function generationOf(alias: string, collection: string): number | undefined {
  if (!collection.startsWith(`${alias}-`)) return undefined;
  const suffix = collection.slice(alias.length + 1);
  // digits only, no sign or leading zero: exactly what generationName writes
  return /^[1-9]\d*$/.test(suffix) ? Number(suffix) : undefined;
}

/** What `upsert` compares of a tool already in the collection. */
interface StoredTool {
  hash: string;
  embedder: string;
  definition: string;
  tenant: string;
}

export interface QdrantIndexOptions {
  /** The Qdrant REST endpoint, e.g. http://localhost:6333. */
  url: string;
  apiKey?: string;
  /** The alias the router reads and writes; generations are `<alias>-<n>`. @default DEFAULT_QDRANT_COLLECTION */
  collection?: string;
  /** Each request to Qdrant gives up after this long. @default DEFAULT_QDRANT_TIMEOUT_MS */
  timeoutMs?: number;
  /** Copies of each shard a new collection keeps on a Qdrant cluster (its replication_factor). @default 1 */
  replicationFactor?: number;
  /** @default DEFAULT_RELATED_WEIGHT */
  relatedWeight?: number;
  /** Sparse vector settings (BM25, name weight, average length). */
  sparse?: SparseOptions;
}

/** Points per upsert request: bounded so that a large catalog does not make one huge body. */
const UPSERT_BATCH = 128;

/**
 * The tool index in Qdrant: one collection per generation behind an alias, so
 * that a re-index builds a new collection and switches the alias atomically
 * while searches go on. A tool is a `tool` point (its own text: dense and
 * sparse vectors) plus one `example` point per example request (the same two
 * of the example alone, so that it lifts its tool only for requests that
 * resemble it); a search fuses a dense and a sparse prefetch by RRF, one
 * result per tool.
 *
 * Scores are Qdrant's RRF scores (rank-based: a tool first in both lists
 * scores highest), clamped to [0, 1]. They order results well but, unlike the
 * embedded index's, do not say how well the best tool matches in absolute
 * terms, so threshold mode and the no-tool rule see ranks, not relevance.
 *
 * `size` counts the tools this process knows of (read at `open`, then kept
 * up to date by its own writes); replicas that share the collection each
 * index the same catalog, so they agree once the catalog is indexed.
 */
export class QdrantIndex implements ToolIndex {
  private count = 0;
  /** The words of the tools this process indexed: every replica builds its own from the catalog it indexes. */
  private readonly spelling = catalogVocabulary();
  /** Writes run one after another, like the embedded index's, and a re-index waits for them. */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly client: QdrantClient,
    private readonly embedder: Embedder,
    /** The alias every read and write goes through. */
    readonly alias: string,
    private readonly dimensions: number,
    private readonly serverTimeout: number,
    private readonly options: QdrantIndexOptions,
  ) {}

  /**
   * Connects, and makes sure the alias names a collection fit for the
   * embedder's vectors: creates the first generation when there is none, and
   * a new one when the current holds vectors of another size.
   */
  static async open(embedder: Embedder, options: QdrantIndexOptions): Promise<QdrantIndex> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_QDRANT_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
    const client = new QdrantClient({
      url: options.url,
      ...(options.apiKey && { apiKey: options.apiKey }),
      timeout: timeoutMs,
      // the version check is one more request at construction whose outcome is only logged; the tests pin the server version instead
      checkCompatibility: false,
    });
    // an OpenAI-compatible embedder learns its size from its first answer
    const dimensions = embedder.dimensions || (await embedder.embed(["tool"]))[0]?.length || 0;
    if (dimensions <= 0) throw new Error(`embedder ${embedder.id} gives no vector size`);
    const alias = options.collection ?? DEFAULT_QDRANT_COLLECTION;
    const index = new QdrantIndex(client, embedder, alias, dimensions, Math.max(1, Math.ceil(timeoutMs / 1000)), options);
    await index.attach();
    return index;
  }

  get size(): number {
    return this.count;
  }

  /** The collection the alias names now. */
  async currentCollection(): Promise<string | undefined> {
    const { aliases } = await this.client.getAliases();
    return aliases.find((a) => a.alias_name === this.alias)?.collection_name;
  }

  upsert(tools: readonly ToolDefinition[]): Promise<number> {
    return this.serialize(async () => {
      const latest = [...new Map(tools.map((t) => [t.name, t])).values()];
      const stored = await this.storedTools(latest.map((t) => t.name));
      const changed: { tool: ToolDefinition; hash: string }[] = [];
      const payloadOnly: Schemas["UpdateOperation"][] = [];
      for (const tool of latest) {
        // stored before this process started or not, its words are this process's to learn
        learnSpelling(this.spelling, tool);
        const hash = storedHash(tool);
        const before = stored.get(tool.name);
        if (before?.hash === hash && before.embedder === this.embedder.id) {
          // same content, but pool, domains, core flag or side effect may have changed: new payload, same vectors
          const payload = toolPayload(tool, hash, this.embedder.id, "tool");
          // the tenant check also moves points written before tenants (tenant "") to the new form
          const moved = before.definition !== payload.definition || before.tenant !== JSON.stringify(payload.tenant);
          if (moved) payloadOnly.push(this.setPayloadOperation(tool, hash));
          continue;
        }
        changed.push({ tool, hash });
      }
      if (payloadOnly.length > 0) {
        await this.client.batchUpdate(this.alias, { operations: payloadOnly, wait: true, timeout: this.serverTimeout });
      }
      if (changed.length === 0) return 0;
      await this.write(this.alias, changed);
      // points of the old content that the new one did not overwrite (fewer examples now)
      const existed = changed.filter((c) => stored.has(c.tool.name));
      if (existed.length > 0) {
        const filter = staleFilter(existed.map((c) => ({ name: c.tool.name, hash: c.hash })));
        await this.client.delete(this.alias, { filter, wait: true, timeout: this.serverTimeout });
      }
      this.count += changed.length - existed.length;
      return changed.length;
    });
  }

  remove(name: string): Promise<boolean> {
    return this.serialize(async () => {
      const existed = (await this.storedTools([name])).has(name);
      await this.client.delete(this.alias, { filter: toolPointsFilter(name), wait: true, timeout: this.serverTimeout });
      this.spelling.delete(name);
      if (existed) this.count--;
      return existed;
    });
  }

  async search(query: string, opts: SearchOptions): Promise<ScoredTool[]> {
    const context = opts.context ?? [];
    if (weightedStems(query, context).size === 0 || opts.limit <= 0) return [];
    const texts = [query, ...context];
    const vectors = opts.sparseOnly ? [] : await this.embedder.embed(texts);
    if (!opts.sparseOnly && vectors.length !== texts.length) throw new Error(`embedder ${this.embedder.id} returned ${vectors.length} vectors for ${texts.length} query texts`);
    const dense = opts.sparseOnly ? undefined : weightedVector(vectors[0]!, vectors.slice(1));
    const sparse = querySparseVector(query, this.options.relatedWeight, context);
    const denseQuery = dense && Array.from(dense);
    // Fused by rank, a score exists only within one query's candidates: the included tools
    // get a query of their own, restricted to them, sent alongside the first.
    const allowed = opts.filter?.tools?.length ? new Set(opts.filter.tools) : undefined;
    const include = [...new Set(opts.include)].filter((name) => !allowed || allowed.has(name));
    const [top, included] = await Promise.all([
      this.queryTools(hybridQueryBody(denseQuery, sparse, opts)),
      include.length === 0 ? [] : this.queryTools(hybridQueryBody(denseQuery, sparse, { limit: include.length, filter: { ...opts.filter, tools: include } })),
    ]);
    return withIncluded(top, included);
  }

  correctSpelling(text: string): CorrectedText {
    return this.spelling.correct(text);
  }

  /** The best hit of each tool group a query finds, as scored tools. */
  private async queryTools(body: Schemas["QueryGroupsRequest"]): Promise<ScoredTool[]> {
    const { groups } = await this.client.queryGroups(this.alias, { ...body, timeout: this.serverTimeout });
    const results: ScoredTool[] = [];
    for (const group of groups) {
      const hit = group.hits[0];
      const tool = definitionOf(hit?.payload);
      if (hit && tool && hit.score > 0) results.push({ tool, score: Math.min(1, hit.score), ...matchedExample(hit.payload) });
    }
    return results;
  }

  /**
   * Removes every tool not in `keep`: the collection outlives the router, so
   * a tool dropped from the catalog while no router ran is still there.
   * Call it with the catalog's names once the catalog is indexed. Returns
   * how many tools went.
   */
  prune(keep: readonly string[]): Promise<number> {
    return this.serialize(async () => {
      const filter = othersFilter(keep);
      const role: Schemas["FieldCondition"] = matchValue("role", "tool");
      const counted = { ...filter, must: [role] };
      const { count } = await this.client.count(this.alias, { filter: counted, exact: true, timeout: this.serverTimeout });
      if (count > 0) await this.client.delete(this.alias, { filter, wait: true, timeout: this.serverTimeout });
      this.count = Math.max(0, this.count - count);
      return count;
    });
  }

  /**
   * Builds a new generation holding exactly `tools` (all embedded afresh),
   * switches the alias to it in one request, then drops the old collection.
   * Searches see the old catalog until the switch and the new one after.
   * Returns how many tools the new collection holds.
   */
  reindex(tools: readonly ToolDefinition[]): Promise<number> {
    return this.serialize(async () => {
      const latest = [...new Map(tools.map((t) => [t.name, t])).values()];
      const old = await this.currentCollection();
      const fresh = await this.createGeneration();
      await this.write(
        fresh,
        latest.map((tool) => ({ tool, hash: storedHash(tool) })),
      );
      await this.switchAlias(fresh, old);
      for (const tool of latest) learnSpelling(this.spelling, tool);
      this.count = latest.length;
      return latest.length;
    });
  }

  /** Finds or makes the alias's collection; a collection of another vector size is replaced by an empty new generation. */
  private async attach(): Promise<void> {
    const current = await this.currentCollection();
    if (current === undefined) {
      const { exists } = await this.client.collectionExists(this.alias);
      if (exists) throw new Error(`Qdrant collection ${this.alias} exists and is not an alias: rename it or choose another QDRANT_COLLECTION`);
      await this.switchAlias(await this.createGeneration(), undefined);
      return;
    }
    const info = await this.client.getCollection(current);
    const vectors = info.config.params.vectors as Record<string, Schemas["VectorParams"] | undefined> | undefined;
    if (vectors?.[DENSE_VECTOR]?.size !== this.dimensions) {
      await this.switchAlias(await this.createGeneration(), current);
      return;
    }
    const role: Schemas["Filter"] = { must: [matchValue("role", "tool")] };
    this.count = (await this.client.count(current, { filter: role, exact: true, timeout: this.serverTimeout })).count;
  }

  private async createGeneration(): Promise<string> {
    const { collections } = await this.client.getCollections();
    const generations = collections.map((c) => generationOf(this.alias, c.name) ?? 0);
    const name = generationName(this.alias, Math.max(0, ...generations) + 1);
    await this.client.createCollection(name, { ...collectionBody(this.dimensions, this.options.replicationFactor), timeout: this.serverTimeout });
    for (const body of payloadIndexBodies()) {
      await this.client.createPayloadIndex(name, { ...body, wait: true, timeout: this.serverTimeout });
    }
    return name;
  }

  /** Points the alias at `to` in one request, then drops `old` (the collection it named before), if any. */
  private async switchAlias(to: string, old: string | undefined): Promise<void> {
    const actions = aliasSwitchActions(this.alias, to, old !== undefined);
    await this.client.updateCollectionAliases({ actions, timeout: this.serverTimeout });
    if (old !== undefined && old !== to) await this.client.deleteCollection(old, { timeout: this.serverTimeout });
    this.count = 0;
  }

  /** Embeds the tools (their text and each example) and upserts their points into `collection`, waiting until applied. */
  private async write(collection: string, tools: readonly { tool: ToolDefinition; hash: string }[]): Promise<void> {
    const texts = tools.map(({ tool }) => {
      const f = toolFields(tool);
      return [[f.name, f.description, f.parameters].filter((s) => s.length > 0).join("\n"), ...exampleDocuments(f).map((e) => e.compared)];
    });
    const vectors = await this.embedder.embed(texts.flat());
    if (vectors.length !== texts.flat().length) {
      throw new Error(`embedder ${this.embedder.id} returned ${vectors.length} vectors for ${tools.length} tools`);
    }
    const points: Schemas["PointStruct"][] = [];
    let at = 0;
    tools.forEach(({ tool, hash }, i) => {
      const own = vectors.slice(at, (at += texts[i]!.length));
      points.push(...toolPoints(tool, hash, this.embedder.id, own, toolSparseVector(tool, this.options.sparse)));
    });
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      await this.client.upsert(collection, { points: points.slice(i, i + UPSERT_BATCH), wait: true, timeout: this.serverTimeout });
    }
  }

  /** The stored hash, embedder, definition and tenant payload (as JSON) of each named tool that is in the collection. */
  private async storedTools(names: readonly string[]): Promise<Map<string, StoredTool>> {
    const found = new Map<string, StoredTool>();
    for (let i = 0; i < names.length; i += UPSERT_BATCH) {
      const ids = names.slice(i, i + UPSERT_BATCH).map((name) => pointId(name, "tool", 0));
      const records = await this.client.retrieve(this.alias, {
        ids,
        with_payload: ["tool", "hash", "embedder", "definition", "tenant"],
        with_vector: false,
        timeout: this.serverTimeout,
      });
      for (const { payload } of records) {
        const { tool, hash, embedder, definition, tenant } = payload ?? {};
        if (typeof tool === "string" && typeof hash === "string" && typeof embedder === "string" && typeof definition === "string") {
          found.set(tool, { hash, embedder, definition, tenant: JSON.stringify(tenant ?? null) });
        }
      }
    }
    return found;
  }

  /** New payload on every point of an unchanged tool. */
  private setPayloadOperation(tool: ToolDefinition, hash: string): Schemas["SetPayloadOperation"] {
    // the role and owner differ per point, so they stay as they are: the rest is the same on all of a tool's points
    const { role: _role, owner: _owner, ...payload } = toolPayload(tool, hash, this.embedder.id, "tool");
    return { set_payload: { payload, filter: toolPointsFilter(tool.name) } };
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.writes.then(op, op);
    this.writes = run.catch(() => undefined);
    return run;
  }
}
