import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo, Socket } from "node:net";
import { after, describe, it } from "node:test";
import { create, equals } from "@bufbuild/protobuf";
import { QdrantClient } from "@qdrant/js-client-rest";
import { TenantExampleSchema, ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { catalogTool as tool, filesystemTools } from "@switchyard/test-fixtures";
import { hash32, LocalEmbedder } from "../src/embedder.js";
import type { Embedder } from "../src/embedder.js";
import {
  aliasSwitchActions,
  collectionBody,
  definitionOf,
  DENSE_VECTOR,
  filterBody,
  SHARED_TENANT,
  generationName,
  generationOf,
  hybridQueryBody,
  payloadIndexBodies,
  pointId,
  QdrantIndex,
  querySparseVector,
  SPARSE_VECTOR,
  othersFilter,
  staleFilter,
  toolPoints,
  toolPointsFilter,
  toolSparseVector,
  exampleSparseVector,
} from "../src/qdrant-index.js";
import { stem } from "../src/text.js";
import { matchesFilter, toolContentHash } from "../src/tool-index.js";
import { countTexts } from "./counting-embedder.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/; // RFC 4122, version 5

const lights = tool({
  name: "home.lights_off",
  description: "Switch lights off in a room.",
  inputSchema: { type: "object", properties: { room: { type: "string", description: "Room name" } } },
  examples: ["turn it off", "make the kitchen dark"],
  pool: "home",
  domains: ["smart-home", "energy"],
});

describe("qdrant request bodies (no server)", () => {
  it("qdrant - the collection has a named cosine dense vector and a named sparse vector with the IDF modifier, replicated as asked", () => {
    assert.deepEqual(collectionBody(1024), {
      vectors: { [DENSE_VECTOR]: { size: 1024, distance: "Cosine" } },
      sparse_vectors: { [SPARSE_VECTOR]: { modifier: "idf" } },
      replication_factor: 1,
    });
    assert.equal(collectionBody(1024, 3).replication_factor, 3);
  });

  it("qdrant - tool, pool, domains and tenant (and the bookkeeping keys role and hash) get keyword indexes", () => {
    assert.deepEqual(payloadIndexBodies(), [
      { field_name: "tool", field_schema: "keyword" },
      { field_name: "pool", field_schema: "keyword" },
      { field_name: "domains", field_schema: "keyword" },
      { field_name: "tenant", field_schema: "keyword" },
      { field_name: "role", field_schema: "keyword" },
      { field_name: "hash", field_schema: "keyword" },
    ]);
  });

  it("qdrant - point ids are UUIDs that depend only on tool, role and index", () => {
    const ids = [pointId("a.b", "tool", 0), pointId("a.b", "example", 0), pointId("a.b", "example", 1), pointId("a.c", "tool", 0)];
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(pointId("a.b", "example", 1), ids[2], "the same point gets the same id every time");
    // fixed, so that another process (or version of this code) overwrites the same points
    assert.equal(pointId("filesystem.read_text_file", "tool", 0), "ec2779c8-217a-5500-b5f6-b0831841a0e1");
  });

  it("qdrant - a tool is one point per text: its own text, then each example, each with its own sparse vector", () => {
    const hash = toolContentHash(lights);
    const vectors = [0, 1, 2].map((i) => new Float32Array([i, 1, 0]));
    const sparse = toolSparseVector(lights);
    const points = toolPoints(lights, hash, "local", vectors, sparse);
    assert.deepEqual(
      points.map((p) => p.id),
      [pointId(lights.name, "tool", 0), pointId(lights.name, "example", 0), pointId(lights.name, "example", 1)],
    );
    assert.deepEqual(points[0]!.vector, { [DENSE_VECTOR]: [0, 1, 0], [SPARSE_VECTOR]: sparse });
    assert.deepEqual(points[2]!.vector, { [DENSE_VECTOR]: [2, 1, 0], [SPARSE_VECTOR]: exampleSparseVector(lights.examples[1]!) });
    assert.deepEqual(sparse, toolSparseVector({ ...lights, examples: [] }), "the tool's own sparse vector leaves its examples out");
    const example = exampleSparseVector("make the kitchen dark");
    assert.ok(example.indices.includes(hash32(stem("kitchen"))) && example.values.every((v) => v === 1), "each stem of an example at 1");
    for (const [i, p] of points.entries()) {
      const { definition, ...rest } = p.payload!;
      assert.deepEqual(rest, {
        tool: "home.lights_off",
        pool: "home",
        domains: ["smart-home", "energy"],
        tenant: [SHARED_TENANT],
        hash,
        embedder: "local",
        role: i === 0 ? "tool" : "example",
        owner: SHARED_TENANT,
        ...(i === 0 ? {} : { example: lights.examples[i - 1] }),
      });
      assert.equal(typeof definition, "string");
      assert.ok(equals(ToolDefinitionSchema, definitionOf(p.payload)!, lights), "the payload carries the whole definition");
    }
  });

  it("qdrant - an example point is the example without its values: the file it names makes no request like it", () => {
    const taught = create(ToolDefinitionSchema, { ...lights, examples: ["dim the lights in living-room/lamp.cfg to 40", "notes/todo.md"] });
    const vectors = [0, 1].map((i) => new Float32Array([i, 1, 0]));
    const points = toolPoints(taught, toolContentHash(taught), "local", vectors, toolSparseVector(taught));
    assert.equal(points.length, 2, "an example of values alone is no point");
    assert.deepEqual(points[1]!.vector, { [DENSE_VECTOR]: [1, 1, 0], [SPARSE_VECTOR]: exampleSparseVector("dim the lights in to") });
    assert.equal(points[1]!.payload!["example"], "dim the lights in living-room/lamp.cfg to 40");
  });

  it("qdrant - a tenant's example is a point it owns; no point's definition carries a tenant's examples", () => {
    const taught = create(ToolDefinitionSchema, { ...lights, tenantExamples: [create(TenantExampleSchema, { tenant: "tenant-b", text: "lights out please" })] });
    const vectors = [0, 1, 2, 3].map((i) => new Float32Array([i, 1, 0]));
    const points = toolPoints(taught, toolContentHash(taught), "local", vectors, toolSparseVector(taught));
    assert.deepEqual(points.map((p) => p.payload!["owner"]), [SHARED_TENANT, SHARED_TENANT, SHARED_TENANT, "tenant-b"]);
    assert.deepEqual(points[3]!.vector, { [DENSE_VECTOR]: [3, 1, 0], [SPARSE_VECTOR]: exampleSparseVector("lights out please") });
    assert.equal(points[3]!.payload!["example"], "lights out please", "a hit on it says which example matched");
    for (const p of points) assert.deepEqual(definitionOf(p.payload)!.tenantExamples, []);
    assert.notEqual(toolContentHash(taught), toolContentHash(lights), "a tenant's example changes what is indexed");
  });

  it("qdrant - a tool limited to tenants carries them as its tenant payload", () => {
    const limited = create(ToolDefinitionSchema, { ...lights, tenants: ["tenant-a", "tenant-b"] });
    const [point] = toolPoints(limited, toolContentHash(limited), "local", [new Float32Array([0, 1, 0])], toolSparseVector(limited));
    assert.deepEqual(point!.payload!["tenant"], ["tenant-a", "tenant-b"]);
    assert.equal(toolContentHash(limited), toolContentHash(lights), "tenants change the payload, not the vectors");
  });

  it("qdrant - sparse vectors: one index per stem (its stable hash), ascending, positive weights", () => {
    const sparse = toolSparseVector(lights);
    assert.deepEqual([...sparse.indices].sort((a, b) => a - b), sparse.indices);
    assert.equal(new Set(sparse.indices).size, sparse.indices.length);
    assert.ok(sparse.values.every((v) => v > 0));
    for (const word of ["lights", "switch", "room"]) {
      assert.ok(sparse.indices.includes(hash32(stem(word))), `${word} is in the sparse vector`);
    }
    assert.ok(!sparse.indices.includes(hash32(stem("kitchen"))), "an example's words are in the example's point, not the tool's");
    assert.ok(sparse.indices.every((i) => Number.isInteger(i) && i >= 0 && i < 2 ** 32), "indices are u32");
  });

  it("qdrant - sparse weights grow with term frequency but saturate, and fall with document length", () => {
    const weightOf = (t: ToolDefinition, word: string) => {
      const v = toolSparseVector(t);
      return v.values[v.indices.indexOf(hash32(stem(word)))]!;
    };
    const once = tool({ name: "x.a", description: "weather" });
    const thrice = tool({ name: "x.a", description: "weather weather weather" });
    const long = tool({ name: "x.a", description: `weather ${"forecast rain wind sun cloud ".repeat(10)}` });
    assert.ok(weightOf(thrice, "weather") > weightOf(once, "weather"));
    assert.ok(weightOf(thrice, "weather") < 3 * weightOf(once, "weather"));
    assert.ok(weightOf(long, "weather") < weightOf(once, "weather"));
  });

  it("qdrant - the query's sparse vector: its stems at 1, related words at the related weight", () => {
    const query = querySparseVector("show the folder");
    const weight = (word: string) => query.values[query.indices.indexOf(hash32(stem(word)))];
    assert.equal(weight("show"), 1);
    assert.equal(weight("folder"), 1);
    assert.equal(weight("directory"), 0.5, "directory is related to folder (concepts.ts)");
    assert.equal(querySparseVector("show the folder", 0).indices.length, 2);
    assert.deepEqual(querySparseVector("the of and"), { indices: [], values: [] });
  });

  it("qdrant - a context's stems count half, a stem in both counts for both", () => {
    const query = querySparseVector("delete it", 0, ["read the folder notes"]);
    const weight = (word: string) => query.values[query.indices.indexOf(hash32(stem(word)))];
    assert.equal(weight("delete"), 1);
    assert.equal(weight("folder"), 0.5);
    assert.equal(querySparseVector("read it again", 0, ["read notes"]).values.reduce((a, b) => Math.max(a, b)), 1.5);
  });

  /** Whose examples count: the shared ones, and a tenant's own in its searches. */
  const sharedOnly = { key: "owner", match: { value: SHARED_TENANT } };
  const ownedBy = (tenant: string) => ({ key: "owner", match: { any: [tenant, SHARED_TENANT] } });
  const filters: [string, Parameters<typeof filterBody>[0], ReturnType<typeof filterBody>][] = [
    ["no filter: shared examples alone", undefined, { must: [sharedOnly] }],
    ["empty lists do not restrict", { tools: [], pools: [], domains: [] }, { must: [sharedOnly] }],
    ["allow-list", { tools: ["a.x", "b.y"] }, { must: [{ key: "tool", match: { any: ["a.x", "b.y"] } }, sharedOnly] }],
    ["pools", { pools: ["home"] }, { must: [{ key: "pool", match: { any: ["home"] } }, sharedOnly] }],
    ["domains (any of the tool's)", { domains: ["energy"] }, { must: [{ key: "domains", match: { any: ["energy"] } }, sharedOnly] }],
    [
      "all three must hold",
      { tools: ["a.x"], pools: ["p"], domains: ["d"] },
      {
        must: [
          { key: "tool", match: { any: ["a.x"] } },
          { key: "pool", match: { any: ["p"] } },
          { key: "domains", match: { any: ["d"] } },
          sharedOnly,
        ],
      },
    ],
    [
      "a tenant: its own tools or the shared ones, its own examples or the shared ones",
      { tenant: "tenant-a" },
      { must: [{ key: "tenant", match: { any: ["tenant-a", SHARED_TENANT] } }, ownedBy("tenant-a")] },
    ],
    [
      "the empty tenant (a packet without one) gets the shared tools alone",
      { tenant: "", pools: ["p"] },
      {
        must: [
          { key: "pool", match: { any: ["p"] } },
          { key: "tenant", match: { any: ["", SHARED_TENANT] } },
          ownedBy(""),
        ],
      },
    ],
  ];
  for (const [what, filter, body] of filters) {
    it(`qdrant - filter body: ${what}`, () => assert.deepEqual(filterBody(filter), body));
  }

  it("qdrant - a tool's points, and its points left from older content", () => {
    assert.deepEqual(toolPointsFilter("a.x"), { must: [{ key: "tool", match: { value: "a.x" } }] });
    assert.deepEqual(staleFilter([{ name: "a.x", hash: "h1" }, { name: "b.y", hash: "h2" }]), {
      should: [
        { must: [{ key: "tool", match: { value: "a.x" } }], must_not: [{ key: "hash", match: { value: "h1" } }] },
        { must: [{ key: "tool", match: { value: "b.y" } }], must_not: [{ key: "hash", match: { value: "h2" } }] },
      ],
    });
  });

  it("qdrant - pruning selects the points of every tool not kept", () => {
    assert.deepEqual(othersFilter(["a.x", "b.y"]), { must_not: [{ key: "tool", match: { any: ["a.x", "b.y"] } }] });
    assert.deepEqual(othersFilter([]), {}, "keeping nothing selects everything");
  });

  it("qdrant - hybrid query: dense and sparse prefetches under the filter, fused by RRF, one group per tool", () => {
    const sparse = querySparseVector("turn it off");
    const body = hybridQueryBody([0.6, 0.8], sparse, { limit: 5, filter: { pools: ["home"] } });
    const filter = { must: [{ key: "pool", match: { any: ["home"] } }, sharedOnly] };
    assert.deepEqual(body, {
      prefetch: [
        { query: [0.6, 0.8], using: DENSE_VECTOR, limit: 40, score_threshold: Number.EPSILON, filter },
        { query: sparse, using: SPARSE_VECTOR, limit: 40, filter },
      ],
      query: { fusion: "rrf" },
      group_by: "tool",
      group_size: 1,
      limit: 5,
      with_payload: ["definition"],
      filter,
    });
    assert.equal((hybridQueryBody([1], sparse, { limit: 20 }).prefetch as { limit: number }[])[0]!.limit, 100, "examples take places in the prefetch");
  });

  it("qdrant - without a dense vector (embedder down) the sparse prefetch alone; with no filter, shared examples alone", () => {
    const sparse = querySparseVector("turn it off");
    const body = hybridQueryBody(undefined, sparse, { limit: 3 });
    assert.deepEqual(body.prefetch, [{ query: sparse, using: SPARSE_VECTOR, limit: 40, filter: { must: [sharedOnly] } }]);
    assert.deepEqual(body.filter, { must: [sharedOnly] });
  });

  it("qdrant - the alias moves in one request: delete then create; a new alias is just created", () => {
    assert.deepEqual(aliasSwitchActions("switchyard-tools", "switchyard-tools-4", true), [
      { delete_alias: { alias_name: "switchyard-tools" } },
      { create_alias: { collection_name: "switchyard-tools-4", alias_name: "switchyard-tools" } },
    ]);
    assert.deepEqual(aliasSwitchActions("switchyard-tools", "switchyard-tools-1", false), [
      { create_alias: { collection_name: "switchyard-tools-1", alias_name: "switchyard-tools" } },
    ]);
  });

  const generations: [string, number | undefined][] = [
    ["switchyard-tools-1", 1],
    ["switchyard-tools-12", 12],
    ["switchyard-tools", undefined],
    ["switchyard-tools-", undefined],
    ["switchyard-tools-01", undefined],
    ["switchyard-tools-1a", undefined],
    ["other-tools-3", undefined],
    ["switchyard-tools-extra-2", undefined],
  ];
  for (const [name, generation] of generations) {
    it(`qdrant - generation of ${name}: ${generation}`, () => {
      assert.equal(generationOf("switchyard-tools", name), generation);
      if (generation !== undefined) assert.equal(generationName("switchyard-tools", generation), name);
    });
  }

  it("qdrant - a Qdrant that does not answer fails within the timeout", async () => {
    // accepts connections and never answers: what a hung server looks like
    const sockets = new Set<Socket>();
    const server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const started = performance.now();
    try {
      await assert.rejects(QdrantIndex.open(new LocalEmbedder(), { url: `http://127.0.0.1:${port}`, timeoutMs: 300 }));
      assert.ok(performance.now() - started < 3000, `gave up after ${Math.round(performance.now() - started)} ms`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// ---------------------------------------------------------------------------
// Against a real Qdrant: QDRANT_URL when set, else a container when a Docker
// engine answers; otherwise the suite is reported skipped with the reason.

/** Pinned, so that the tests see the server version the code was written against. */
const QDRANT_IMAGE = process.env["QDRANT_IMAGE"] ?? "qdrant/qdrant:v1.18.0";

interface Qdrant {
  url: string;
  apiKey?: string;
  stop(): Promise<void>;
}

function dockerEngineAnswers(): boolean {
  // the CLI asks the engine; a missing CLI or engine fails fast, a stuck one within the timeout
  const info = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { timeout: 5000, stdio: "ignore" });
  return info.status === 0;
}

async function findQdrant(): Promise<Qdrant | string> {
  const url = process.env["QDRANT_URL"];
  if (url) return { url, apiKey: process.env["QDRANT_API_KEY"], stop: () => Promise.resolve() };
  if (!dockerEngineAnswers()) return "no Qdrant: set QDRANT_URL or run a Docker engine";
  // testcontainers is loaded only when there is an engine to talk to
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer(QDRANT_IMAGE)
    .withExposedPorts(6333)
    .withWaitStrategy(Wait.forHttp("/readyz", 6333))
    .start();
  return {
    url: `http://${container.getHost()}:${container.getMappedPort(6333)}`,
    stop: async () => void (await container.stop()),
  };
}

const qdrant = await findQdrant();
if (typeof qdrant === "string") console.log(`qdrant integration tests skipped: ${qdrant}`);

// skipped test by test, so that the runner counts each one as skipped
const integration = { skip: typeof qdrant === "string" ? qdrant : false };

describe("qdrant index (integration)", () => {
  const server = qdrant as Qdrant;
  const client = () => new QdrantClient({ url: server.url, apiKey: server.apiKey, checkCompatibility: false });
  // a fresh alias per test, so tests (and runs against a shared QDRANT_URL) never meet
  const aliases: string[] = [];
  const freshAlias = () => {
    const alias = `switchyard-test-${process.pid}-${aliases.length}-${Date.now().toString(36)}`;
    aliases.push(alias);
    return alias;
  };
  const open = (alias: string, embedder: Embedder = new LocalEmbedder()) =>
    QdrantIndex.open(embedder, { url: server.url, apiKey: server.apiKey, collection: alias, timeoutMs: 10_000 });
  const pointsOf = async (alias: string, name: string) =>
    (await client().count(alias, { filter: toolPointsFilter(name), exact: true })).count;
  const names = (results: { tool: ToolDefinition }[]) => results.map((r) => r.tool.name);

  after(async () => {
    if (typeof qdrant === "string") return;
    const c = client();
    const { collections } = await c.getCollections();
    for (const alias of aliases) {
      for (const { name } of collections) if (generationOf(alias, name) !== undefined) await c.deleteCollection(name);
    }
    await server.stop();
  });

  it("qdrant - upsert indexes the catalog; unchanged tools are not embedded again", integration, async () => {
    const alias = freshAlias();
    const { embedder, texts } = countTexts();
    const index = await open(alias, embedder);
    const tools = filesystemTools();
    assert.equal(await index.upsert(tools), tools.length);
    assert.equal(index.size, tools.length);
    const embedded = texts();
    assert.equal(await index.upsert(tools), 0);
    assert.equal(texts(), embedded, "no tool text was embedded again");

    const found = await index.search("read the file notes/todo.md", { limit: 3 });
    assert.ok(names(found).includes("filesystem.read_text_file"), `got ${names(found).join(", ")}`);
    assert.ok(found.every((r) => r.score > 0 && r.score <= 1));
    assert.equal(new Set(names(found)).size, found.length, "one result per tool");
  });

  it("qdrant - search never leaves the filter: allow-list, pools, domains, tenant", integration, async () => {
    const alias = freshAlias();
    const index = await open(alias);
    const tools = filesystemTools().map((t, i) =>
      tool({ ...t, pool: i % 2 ? "odd" : "even", domains: i % 3 === 0 ? ["files", "admin"] : ["files"], tenants: i % 4 === 1 ? ["tenant-a"] : [] }),
    );
    await index.upsert(tools);
    const filters = [
      { tools: ["filesystem.read_text_file", "filesystem.list_directory"] },
      { pools: ["odd"] },
      { domains: ["admin"] },
      { pools: ["even"], domains: ["admin"] },
      { tenant: "tenant-a" },
      { tenant: "tenant-b", pools: ["odd"] },
    ];
    for (const filter of filters) {
      const found = await index.search("list or read files in a directory", { limit: 20, filter });
      assert.ok(found.length > 0, `something matches ${JSON.stringify(filter)}`);
      for (const r of found) assert.ok(matchesFilter(r.tool, filter), `${r.tool.name} is outside ${JSON.stringify(filter)}`);
    }
  });

  it("qdrant - included tools come after the top, marked, within the filter; never twice", integration, async () => {
    const alias = freshAlias();
    const index = await open(alias);
    await index.upsert([...filesystemTools(), lights]);
    const found = await index.search("read the file notes/todo.md", { limit: 1, include: [lights.name, "filesystem.read_text_file", "never.indexed"] });
    assert.deepEqual(names(found)[0], "filesystem.read_text_file");
    assert.equal(found[0]?.included, undefined);
    assert.deepEqual(new Set(names(found)).size, found.length, "each tool once");
    for (const r of found.slice(1)) assert.equal(r.included, true, `${r.tool.name} is there for include`);
    const allowed = await index.search("read the file notes/todo.md", { limit: 3, include: [lights.name], filter: { tools: ["filesystem.read_text_file"] } });
    assert.deepEqual(names(allowed), ["filesystem.read_text_file"], "an included tool outside the allow-list stays out");
  });

  it("qdrant - hybrid search: an example request finds its tool, a sparse-only search still works", integration, async () => {
    const alias = freshAlias();
    const index = await open(alias);
    await index.upsert([...filesystemTools(), lights]);
    assert.equal(names(await index.search("make the kitchen dark", { limit: 3 }))[0], "home.lights_off");
    assert.equal(names(await index.search("switch the lights off", { limit: 3, sparseOnly: true }))[0], "home.lights_off");
    assert.equal(await pointsOf(alias, lights.name), 3, "its text and its two examples");
  });

  it("qdrant - a changed tool is re-embedded alone and keeps no points of its old content", integration, async () => {
    const alias = freshAlias();
    const { embedder, texts } = countTexts();
    const index = await open(alias, embedder);
    await index.upsert([...filesystemTools(), lights]);
    const before = texts();
    const fewer = tool({ ...lights, examples: ["turn it off"] });
    assert.equal(await index.upsert([...filesystemTools(), fewer]), 1);
    assert.equal(texts() - before, 2, "its text and its one example");
    assert.equal(await pointsOf(alias, lights.name), 2, "the dropped example's point is gone");
    assert.equal(index.size, filesystemTools().length + 1);
  });

  it("qdrant - a change outside the content (pool, domains) updates the payload without re-embedding", integration, async () => {
    const alias = freshAlias();
    const { embedder, texts } = countTexts();
    const index = await open(alias, embedder);
    await index.upsert([lights]);
    const before = texts();
    const moved = tool({ ...lights, pool: "office", domains: ["lighting"] });
    assert.equal(await index.upsert([moved]), 0);
    assert.equal(texts(), before);
    const found = await index.search("make the kitchen dark", { limit: 3, filter: { pools: ["office"], domains: ["lighting"] } });
    assert.deepEqual(names(found), ["home.lights_off"]);
    assert.equal(found[0]!.tool.pool, "office", "results carry the new definition");
    assert.deepEqual(await index.search("make the kitchen dark", { limit: 3, filter: { pools: ["home"] } }), []);
  });

  it("qdrant - remove deletes every point of a tool", integration, async () => {
    const alias = freshAlias();
    const index = await open(alias);
    await index.upsert([...filesystemTools(), lights]);
    assert.equal(await index.remove(lights.name), true);
    assert.equal(await index.remove(lights.name), false);
    assert.equal(await pointsOf(alias, lights.name), 0);
    assert.equal(index.size, filesystemTools().length);
    assert.ok(!names(await index.search("make the kitchen dark", { limit: 20 })).includes(lights.name));
  });

  it("qdrant - reindex builds the next generation, switches the alias in one step and drops the old one", integration, async () => {
    const alias = freshAlias();
    const index = await open(alias);
    await index.upsert([...filesystemTools(), lights]);
    const first = await index.currentCollection();
    assert.equal(first, generationName(alias, 1));

    const kept = filesystemTools().slice(0, 4);
    assert.equal(await index.reindex(kept), kept.length);
    assert.equal(await index.currentCollection(), generationName(alias, 2));
    assert.equal((await client().collectionExists(first!)).exists, false, "the old generation is dropped");
    assert.equal(index.size, kept.length);
    const found = await index.search("list files read write directory search", { limit: 20 });
    assert.ok(found.length > 0);
    for (const r of found) assert.ok(kept.some((t) => t.name === r.tool.name), `${r.tool.name} was not re-indexed`);
  });

  it("qdrant - prune removes the tools the catalog no longer has", integration, async () => {
    const alias = freshAlias();
    const index = await open(alias);
    await index.upsert([...filesystemTools(), lights]);
    const keep = filesystemTools().slice(0, 3).map((t) => t.name);
    assert.equal(await index.prune(keep), filesystemTools().length + 1 - keep.length);
    assert.equal(index.size, keep.length);
    assert.equal(await pointsOf(alias, lights.name), 0);
    for (const r of await index.search("list read write files directory", { limit: 20 })) assert.ok(keep.includes(r.tool.name));
  });

  it("qdrant - a restarted router finds its index: nothing is embedded again", integration, async () => {
    const alias = freshAlias();
    await (await open(alias)).upsert(filesystemTools());
    const { embedder, texts } = countTexts();
    const reopened = await open(alias, embedder);
    assert.equal(reopened.size, filesystemTools().length);
    assert.equal(await reopened.upsert(filesystemTools()), 0);
    assert.equal(texts(), 0);
  });

  it("qdrant - another embedder re-embeds: a new vector size gets a new generation, a new id re-embeds each tool", integration, async () => {
    const alias = freshAlias();
    await (await open(alias)).upsert(filesystemTools());
    const smaller = await open(alias, new LocalEmbedder({ dimensions: 64 }));
    assert.equal(await smaller.currentCollection(), generationName(alias, 2));
    assert.equal(smaller.size, 0);
    assert.equal(await smaller.upsert(filesystemTools()), filesystemTools().length);

    const sameSize = await open(alias, new LocalEmbedder({ dimensions: 64, bigramWeight: 0.25 }));
    assert.equal(await sameSize.currentCollection(), generationName(alias, 2));
    assert.equal(await sameSize.upsert(filesystemTools()), filesystemTools().length, "vectors of another embedder id are replaced");
  });
});
