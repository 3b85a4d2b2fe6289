import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { newPacket, Packet_State, RoutingCandidate_Source } from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";
import { catalogStats, EmbeddedIndex, LocalEmbedder, mulberry32, OpenAIEmbedder } from "@switchyard/retrieval";
import type { ScoredTool, ToolFilter, ToolIndex } from "@switchyard/retrieval";
import { catalogTool as tool, filesystemTools, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
// the scripted OpenAI-compatible server is the test double of a remote embeddings API
import type { ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { outageOf } from "@switchyard/llm";
import { DependencyHealth } from "@switchyard/telemetry";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { routeWithFallback, wholeCatalog } from "../src/fallback.js";
import { OfflineIndex } from "../src/offline-index.js";
import type { RouterCatalog } from "../src/fallback.js";
import { routeStage } from "../src/route.js";

// The scripted server's vectors: the local embedder's, scaled by 3 so that a client that forgets to normalise is caught.
const scaledLocalVector = (text: string, length: number) => Array.from(new LocalEmbedder({ dimensions: length }).embedOne(text), (x) => x * 3);

const core: ToolDefinition[] = [
  tool({ name: "time.now", description: "Get the current date and time in a time zone.", core: true }),
  tool({ name: "sandbox.python", description: "Run Python code in a sandbox for calculations.", core: true }),
];
const TOOLS = [...filesystemTools(), ...core];
const catalogOf = (tools: readonly ToolDefinition[]): RouterCatalog => ({
  core: () => tools.filter((t) => t.core),
  all: () => [...tools],
});
const names = (candidates: RoutingCandidate[]) => candidates.map((c) => c.tool?.name ?? "");

/** A tool index whose store cannot be reached: every search fails, as a Qdrant that is down would. */
class UnreachableIndex implements ToolIndex {
  readonly size = 0;
  upsert(): Promise<number> {
    return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6333"));
  }
  remove(): Promise<boolean> {
    return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6333"));
  }
  search(): Promise<ScoredTool[]> {
    return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6333"));
  }
}

describe("route fallback (embedder behind the scripted OpenAI-compatible server)", () => {
  let server: ScriptedOpenAIServer;
  let index: EmbeddedIndex;
  const config = defaultConfig();
  const catalog = catalogOf(TOOLS);

  before(async () => {
    server = await startScriptedOpenAIServer({ dimensions: 64, embed: scaledLocalVector });
    index = new EmbeddedIndex(new OpenAIEmbedder({ baseURL: server.url, model: "scripted-embed", dimensions: 64, maxRetries: 0, cooldownMs: 0 }));
    await index.upsert(TOOLS);
  });
  after(() => server.close());
  beforeEach(() => {
    server.script = {};
  });

  it("fallback - with the embedder up, hybrid search and no warnings", async () => {
    const { candidates, warnings } = await routeWithFallback(index, catalog, { query: "please read the file notes/todo.md" }, config);
    assert.deepEqual(warnings, []);
    assert.equal(candidates[0]?.tool?.name, "filesystem.read_text_file");
  });

  it("fallback - endpoint down: route-only still returns candidates, by lexical search, with a warning", async () => {
    server.script = { failWith: 503 };
    // a query not seen before: a cached query vector would spare the embedder
    const { candidates, warnings } = await routeWithFallback(index, catalog, { query: "please read the file notes/plan.md" }, config);
    assert.equal(candidates[0]?.tool?.name, "filesystem.read_text_file");
    assert.equal(candidates[0]?.source, RoutingCandidate_Source.SEMANTIC);
    assert.ok(candidates[0]!.score > 0, "lexical candidates are scored");
    assert.ok(names(candidates).includes("time.now"), "core tools still come along");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^hybrid search failed \(embeddings request failed: .*503.*\); routed by lexical search alone$/);
  });

  it("fallback - wrong dimension: the error names both dimensions, and routing falls back", async () => {
    server.script = { wrongDimension: 12 };
    const { candidates, warnings } = await routeWithFallback(index, catalog, { query: "rename notes/a.md to notes/b.md" }, config);
    assert.match(warnings[0] ?? "", /returned a vector of 12 dimensions, expected 64/);
    assert.equal(candidates[0]?.tool?.name, "filesystem.move_file");
  });

  it("fallback - embedder down and lexical search finding nothing: the whole catalog within the filter", async () => {
    server.script = { failWith: 503 };
    const filter = { tools: ["filesystem.write_file", "filesystem.list_directory", "time.now", "not.in.catalog"] };
    const { candidates, warnings } = await routeWithFallback(index, catalog, { query: "tell me a joke", filter }, config);
    assert.deepEqual(
      candidates.map((c) => [c.tool?.name, c.source, c.score]),
      [
        ["filesystem.list_directory", RoutingCandidate_Source.SEMANTIC, 0],
        ["filesystem.write_file", RoutingCandidate_Source.SEMANTIC, 0],
        ["time.now", RoutingCandidate_Source.CORE, 0],
      ],
    );
    assert.equal(warnings.length, 3);
    assert.match(warnings[1]!, /lexical search found no tool/);
    assert.match(warnings[2]!, /whole catalog within the request's filter \(3 tools, unscored\)/);
  });

  it("fallback - the whole catalog holds the tenant filter too", () => {
    const tools = [tool({ name: "a.private", tenants: ["tenant-a"] }), tool({ name: "b.shared" }), tool({ name: "c.core", core: true, tenants: ["tenant-a"] })];
    assert.deepEqual(names(wholeCatalog(tools, { query: "x", filter: { tenant: "tenant-a" } })), ["a.private", "b.shared", "c.core"]);
    assert.deepEqual(names(wholeCatalog(tools, { query: "x", filter: { tenant: "tenant-b" } })), ["b.shared"]);
  });

  it("fallback - embedder and lexical search both failing: the whole allowed catalog, with warnings", async () => {
    const filter: ToolFilter = { tools: ["filesystem.read_text_file", "sandbox.python", "filesystem.move_file"] };
    const { candidates, warnings } = await routeWithFallback(new UnreachableIndex(), catalog, { query: "read notes/todo.md", filter }, config);
    assert.deepEqual(names(candidates), ["filesystem.move_file", "filesystem.read_text_file", "sandbox.python"]);
    assert.match(warnings[0]!, /^hybrid search failed \(connect ECONNREFUSED/);
    assert.match(warnings[1]!, /^lexical search failed too \(connect ECONNREFUSED/);
    assert.match(warnings[2]!, /whole catalog/);
  });

  it("fallback - tools that could not be embedded (endpoint down at start): the whole allowed catalog instead of no tool", async () => {
    const empty = new EmbeddedIndex(new OpenAIEmbedder({ baseURL: server.url, model: "scripted-embed", maxRetries: 0, cooldownMs: 0 }));
    server.script = { failWith: 503 };
    await assert.rejects(empty.upsert(TOOLS), /503/);
    const { candidates, warnings } = await routeWithFallback(empty, catalog, { query: "list the files in notes" }, config);
    assert.equal(candidates.length, TOOLS.length);
    assert.match(warnings[0]!, new RegExp(`no tool found, but ${TOOLS.length} catalog tool\\(s\\) are not indexed`));
  });

  it("fallback - tools that could not be embedded, with the built-in embedder's index: ranked as the offline router ranks, scored, and the outage recorded for the packet", async () => {
    const embeddings = new DependencyHealth({ info: () => undefined }).watch({ name: "embeddings endpoint", model: "scripted-embed", endpoint: new URL(server.url).host });
    const empty = new EmbeddedIndex(new OpenAIEmbedder({ baseURL: server.url, model: "scripted-embed", maxRetries: 0, cooldownMs: 0, onOutcome: (error) => (error ? embeddings.failed(outageOf(error)) : embeddings.answered()) }));
    server.script = { failWith: 503 };
    await assert.rejects(empty.upsert(TOOLS), /503/);
    const offline = new OfflineIndex();
    const routed = await routeWithFallback(empty, catalog, { query: "please read the file notes/todo.md" }, config, { offline, embeddings });
    // The same list a router without EMBEDDINGS_BASE_URL gives.
    const offlineRouter = await routeWithFallback(await offline.of(TOOLS), catalog, { query: "please read the file notes/todo.md" }, config);
    assert.deepEqual(names(routed.candidates), names(offlineRouter.candidates));
    assert.deepEqual(offlineRouter.warnings, []);
    assert.equal(routed.candidates[0]?.tool?.name, "filesystem.read_text_file");
    assert.ok(routed.candidates[0]!.score > 0, "scored, not the unscored catalog");
    assert.deepEqual(routed.warnings, [`no tool found, but ${TOOLS.length} catalog tool(s) are not indexed (their embedding failed); ranked the catalog with the built-in embedder`]);
    assert.equal(routed.fallback?.cause, "http_5xx");
    assert.match(routed.fallback?.detail ?? "", /^the embeddings endpoint scripted-embed at 127\.0\.0\.1:\d+ answered HTTP 503 .*, so the router ranked the catalog with the built-in embedder$/);
    // A tool that leaves the catalog leaves the offline index too.
    const fewer = catalogOf(TOOLS.filter((t) => t.name !== "filesystem.read_text_file"));
    const after = await routeWithFallback(empty, fewer, { query: "please read the file notes/todo.md" }, config, { offline, embeddings });
    assert.ok(!names(after.candidates).includes("filesystem.read_text_file"));
  });

  it("fallback - an empty allowed catalog stays empty (nothing outside the filter to offer)", async () => {
    const { candidates, searched } = await routeWithFallback(new UnreachableIndex(), catalog, { query: "anything", filter: { pools: ["none"] } }, config);
    assert.deepEqual(candidates, []);
    assert.equal(searched, 0);
  });

  it("fallback - no tool matched: the result says how many tools the request could get (for the packet's reason)", async () => {
    const all = await routeWithFallback(index, catalog, { query: "tell me a joke" }, config);
    assert.deepEqual(names(all.candidates), ["sandbox.python", "time.now"], "core tools alone");
    assert.equal(all.searched, TOOLS.length);
    const allowed = await routeWithFallback(index, catalog, { query: "tell me a joke", filter: { tools: ["filesystem.read_text_file", "time.now"] } }, config);
    assert.equal(allowed.searched, 2);
    const found = await routeWithFallback(index, catalog, { query: "please read the file notes/todo.md" }, config);
    assert.equal(found.searched, undefined, "only counted when nothing matched");
  });

  it("fallback - the route stage with the embedder down hands the packet to the selector and logs the warning", async () => {
    server.script = { failWith: 503 };
    const packet = newPacket({ message: "list the files in notes" });
    packet.toolRouting!.needsTool = true; // as the intent stage leaves a request its rules recognise
    const outcome = await routeStage(packet, {
      route: (req) => routeWithFallback(index, catalog, req, config),
      catalogStats: () => catalogStats(TOOLS),
      englishOnly: true,
    });
    assert.deepEqual(outcome, { next: "select" });
    assert.equal(packet.state, Packet_State.SELECTING);
    assert.ok(names(packet.toolRouting?.candidates ?? []).includes("filesystem.list_directory"));
    const log = packet.reasoning?.reflectionLog ?? [];
    assert.ok(
      log.some((e) => e.step === "route" && /^routing fell back: hybrid search failed/.test(e.summary)),
      log.map((e) => e.summary).join("\n"),
    );
  });
});

const VERBS = ["read", "write", "list", "search", "delete", "send", "create", "move", "get", "run"];
const NOUNS = ["file", "email", "calendar", "weather", "issue", "directory", "invoice", "photo", "ticket", "note"];
const POOLS = ["", "ops", "mail", "files"];
const DOMAINS = ["files", "medicine", "finance", "travel"];

describe("route fallback - property", () => {
  let server: ScriptedOpenAIServer;
  before(async () => {
    server = await startScriptedOpenAIServer({ dimensions: 32, embed: scaledLocalVector });
  });
  after(() => server.close());

  it("fallback - route-only never returns a tool outside the filter, nor an empty list when the embedder is down and the filter allows tools", async () => {
    const CASES = 300;
    for (let seed = 1; seed <= CASES; seed++) {
      const random = mulberry32(seed); // seeded, so a failing case can be replayed from its seed
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const some = <T>(xs: readonly T[], p: number): T[] => xs.filter(() => random() < p);

      const catalog: ToolDefinition[] = [];
      const count = 1 + Math.floor(random() * 25);
      for (let i = 0; i < count; i++) {
        const verb = pick(VERBS);
        const noun = pick(NOUNS);
        catalog.push(
          tool({
            name: `svc${i % 3}.${verb}_${noun}_${i}`,
            description: `${verb} a ${noun}${random() < 0.5 ? ` and ${pick(VERBS)} its ${pick(NOUNS)}` : ""}`,
            pool: pick(POOLS),
            domains: some(DOMAINS, 0.3),
            core: random() < 0.15,
          }),
        );
      }
      const filter: ToolFilter = {
        tools: random() < 0.5 ? [...some(catalog, 0.4).map((t) => t.name), ...(random() < 0.3 ? ["ghost.tool"] : [])] : [],
        pools: random() < 0.3 ? some(POOLS, 0.5) : [],
        domains: random() < 0.3 ? some(DOMAINS, 0.5) : [],
      };
      // at least one searchable word: a query of stopwords alone embeds nothing and gets no tool in any state
      const words = Array.from({ length: Math.floor(random() * 4) }, () => pick([...VERBS, ...NOUNS, "the", "please", "zebra", "quux"]));
      const query = [...words, pick([...VERBS, ...NOUNS, "zebra", "quux"])].sort(() => random() - 0.5).join(" ");
      const settings: Config = {
        ...defaultConfig(),
        ROUTER_MODE: random() < 0.5 ? "topk" : "threshold",
        ROUTER_TOP_K: 1 + Math.floor(random() * 5),
      };
      const topK = random() < 0.3 ? 1 + Math.floor(random() * 3) : undefined;

      // the index holds all of the catalog, part of it, or nothing (the embedder was down when the catalog came)
      server.script = {};
      const index = new EmbeddedIndex(new OpenAIEmbedder({ baseURL: server.url, model: "scripted-embed", maxRetries: 0, cooldownMs: 0 }));
      const indexed = pick([catalog, some(catalog, 0.5), []]);
      if (indexed.length > 0) await index.upsert(indexed);
      const down = random() < 0.7;
      server.script = down ? pick([{ failWith: 503 }, { failWith: 401 }, { wrongDimension: 7 }]) : {};

      const { candidates, warnings } = await routeWithFallback(index, catalogOf(catalog), { query, filter, ...(topK ? { topK } : {}) }, settings);

      // the filter, checked independently of matchesFilter
      const allowed = (t: ToolDefinition) =>
        (!filter.tools?.length || filter.tools.includes(t.name)) &&
        (!filter.pools?.length || filter.pools.includes(t.pool)) &&
        (!filter.domains?.length || t.domains.some((d) => filter.domains!.includes(d)));
      const context = `seed ${seed}: query ${JSON.stringify(query)}, filter ${JSON.stringify(filter)}, down ${down}`;
      for (const c of candidates) assert.ok(c.tool && allowed(c.tool), `${c.tool?.name} is outside the filter (${context})`);
      assert.equal(new Set(names(candidates)).size, candidates.length, `a tool twice (${context})`);
      if (down) {
        assert.ok(warnings.length > 0, `no warning (${context})`);
        if (catalog.some(allowed)) assert.ok(candidates.length > 0, `empty list (${context})`);
      } else if (indexed === catalog) {
        assert.deepEqual(warnings, [], context);
      }
    }
  });
});
