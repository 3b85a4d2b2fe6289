import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  intentOf,
  newPacket,
  Packet_State,
  RoutingCandidate_Source,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";
import { configSchema, defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { catalogStats, LocalEmbedder } from "@switchyard/retrieval";
import type { SearchOptions, ToolIndex, ToolNeedInput, ToolNeedScorer } from "@switchyard/retrieval";
import { candidate, routeCandidates, routeStage } from "../src/route.js";
import type { RouteQuery, RouteStageDeps } from "../src/route.js";
import { EmbeddedIndex } from "@switchyard/retrieval";
import { catalogTool as tool, filesystemTools } from "@switchyard/test-fixtures";

const core: ToolDefinition[] = [
  tool({ name: "time.now", description: "Get the current date and time in a time zone.", core: true }),
  tool({ name: "memory.search_nodes", description: "Search the knowledge graph for remembered entities.", core: true }),
  tool({ name: "sandbox.python", description: "Run Python code in a sandbox for calculations.", core: true }),
];
const CORE_NAMES = core.map((t) => t.name);
const TOOLS = [...filesystemTools(), ...core];

const names = (candidates: RoutingCandidate[]): string[] => candidates.map((c) => c.tool?.name ?? "");
const semanticOf = (candidates: RoutingCandidate[]): RoutingCandidate[] =>
  candidates.filter((c) => c.source === RoutingCandidate_Source.SEMANTIC);

describe("route", () => {
  const index = new EmbeddedIndex(new LocalEmbedder());
  const config = defaultConfig();
  const route = (req: RouteQuery, settings: Config = config): Promise<RoutingCandidate[]> =>
    routeCandidates(index, core, req, settings);

  before(async () => {
    await index.upsert(TOOLS);
  });

  describe("routeCandidates", () => {
    const firsts: [string, string][] = [
      ["please read the file notes/todo.md", "filesystem.read_text_file"],
      ["write hello to notes/a.md", "filesystem.write_file"],
      ["rename notes/a.md to notes/b.md", "filesystem.move_file"],
      ["which directories are you allowed to access?", "filesystem.list_allowed_directories"],
      ["open the picture notes/cat.png", "filesystem.read_media_file"],
    ];
    for (const [query, expected] of firsts) {
      it(`route - "${query}" ranks ${expected} first`, async () => {
        const candidates = await route({ query });
        assert.equal(candidates[0]?.tool?.name, expected, names(candidates).join(", "));
        assert.equal(candidates[0]?.source, RoutingCandidate_Source.SEMANTIC);
      });
    }

    it('route - "list the files in notes" ranks list_directory in the top 2', async () => {
      const candidates = await route({ query: "list the files in notes" });
      assert.ok(names(candidates).slice(0, 2).includes("filesystem.list_directory"), names(candidates).join(", "));
    });

    it("route - core tools are always there, once each, after the semantic candidates", async () => {
      for (const query of ["please read the file notes/todo.md", "tell me a joke", "", "what time is it in Tokyo now?"]) {
        const candidates = await route({ query });
        const list = names(candidates);
        for (const name of CORE_NAMES) assert.equal(list.filter((n) => n === name).length, 1, `${name} for "${query}"`);
        const firstCore = candidates.findIndex((c) => c.source === RoutingCandidate_Source.CORE);
        const lastSemantic = candidates.findLastIndex((c) => c.source === RoutingCandidate_Source.SEMANTIC);
        assert.ok(firstCore === -1 || lastSemantic < firstCore, `order for "${query}": ${list.join(", ")}`);
      }
    });

    it("route - a core tool that matches the query is a semantic candidate", async () => {
      const candidates = await route({ query: "what time is it in Tokyo now?" });
      const time = candidates.find((c) => c.tool?.name === "time.now");
      assert.equal(time?.source, RoutingCandidate_Source.SEMANTIC);
      assert.equal(candidates[0]?.tool?.name, "time.now");
    });

    it("route - core candidates carry their score for the query, 0 when they do not match", async () => {
      const candidates = await route({ query: "run this python snippet: print(2 + 2)" });
      const python = candidates.find((c) => c.tool?.name === "sandbox.python");
      assert.ok(python && python.score > 0);
      const unknown = tool({ name: "clock.tick", description: "Not indexed.", core: true });
      const withUnknown = await routeCandidates(index, [...core, unknown], { query: "tell me a joke" }, config);
      const tick = withUnknown.find((c) => c.tool?.name === "clock.tick");
      assert.equal(tick?.source, RoutingCandidate_Source.CORE);
      assert.equal(tick?.score, 0);
    });

    it("route - one search per route: the core tools' scores come with the query's candidates, as a full search scores them", async () => {
      const searches: SearchOptions[] = [];
      const counting: ToolIndex = { upsert: (t) => index.upsert(t), remove: (n) => index.remove(n), size: index.size, search: (q, opts) => (searches.push(opts), index.search(q, opts)) };
      const query = "run this python snippet: print(2 + 2) and search my memory";
      const candidates = await routeCandidates(counting, core, { query, topK: 1 }, config);
      assert.equal(searches.length, 1);
      const everyScore = new Map((await index.search(query, { limit: 100 })).map((r) => [r.tool.name, r.score]));
      for (const c of candidates.filter((c) => c.source === RoutingCandidate_Source.CORE)) {
        assert.equal(c.score, everyScore.get(c.tool!.name) ?? 0, c.tool!.name);
      }
    });

    it("route - the allow-list holds for semantic and core tools", async () => {
      const allowedTools = ["filesystem.read_text_file", "filesystem.write_file", "time.now"];
      for (const query of ["please read the file notes/todo.md", "list the files in notes", "search my memory", ""]) {
        const candidates = await route({ query, filter: { tools: allowedTools } });
        for (const name of names(candidates)) assert.ok(allowedTools.includes(name), `${name} is not allowed ("${query}")`);
        assert.ok(names(candidates).includes("time.now"));
      }
      const read = await route({ query: "please read the file notes/todo.md", filter: { tools: allowedTools } });
      assert.equal(read[0]?.tool?.name, "filesystem.read_text_file");
    });

    it("route - a tenant gets the shared tools and its own, semantic and core; never another tenant's", async () => {
      const own = new EmbeddedIndex(new LocalEmbedder());
      const forA = (t: ToolDefinition) => tool({ ...t, tenants: ["tenant-a"] });
      const coreA = [forA(core[1]!), core[0]!];
      await own.upsert([...filesystemTools().map((t) => (t.name === "filesystem.read_text_file" ? forA(t) : t)), ...coreA]);
      const routeAs = (tenant: string) =>
        routeCandidates(own, coreA, { query: "please read the file notes/todo.md and search my memory", filter: { tenant } }, config);
      const a = names(await routeAs("tenant-a"));
      assert.ok(a.includes("filesystem.read_text_file") && a.includes("memory.search_nodes") && a.includes("time.now"), a.join(", "));
      for (const other of ["tenant-b", ""]) {
        const b = names(await routeAs(other));
        assert.ok(!b.includes("filesystem.read_text_file") && !b.includes("memory.search_nodes"), `${other}: ${b.join(", ")}`);
        assert.ok(b.includes("time.now") && b.some((name) => name.startsWith("filesystem.")), `${other} keeps the shared tools: ${b.join(", ")}`);
      }
    });

    it("route - an allow-list without matching tools leaves only the allowed core tools", async () => {
      const candidates = await route({ query: "please read the file notes/todo.md", filter: { tools: ["sandbox.python"] } });
      assert.deepEqual(names(candidates), ["sandbox.python"]);
      assert.equal(candidates[0]?.source, RoutingCandidate_Source.CORE);
    });

    it("route - topk mode returns at most K semantic candidates, K from the request first", async () => {
      const query = "list the files in notes";
      assert.equal(semanticOf(await route({ query })).length, config.ROUTER_TOP_K);
      assert.equal(semanticOf(await route({ query }, { ...config, ROUTER_TOP_K: 3 })).length, 3);
      assert.equal(semanticOf(await route({ query, topK: 1 })).length, 1);
      assert.equal(semanticOf(await route({ query, topK: 0 })).length, config.ROUTER_TOP_K);
    });

    it("route - topk mode drops candidates below the minimum score", async () => {
      assert.deepEqual(semanticOf(await route({ query: "tell me a joke" })), []);
      const strict = await route({ query: "list the files in notes" }, { ...config, ROUTER_MIN_SCORE: 0.6 });
      assert.ok(semanticOf(strict).length >= 1);
      for (const c of semanticOf(strict)) assert.ok(c.score >= 0.6);
    });

    it("route - threshold mode returns every tool at or above the threshold, best first", async () => {
      const settings: Config = { ...config, ROUTER_MODE: "threshold", ROUTER_SCORE_THRESHOLD: 0.35 };
      const query = "please read the file notes/todo.md";
      const semantic = semanticOf(await route({ query }, settings));
      const expected = (await index.search(query, { limit: 100 })).filter((r) => r.score >= 0.35);
      assert.ok(expected.length >= 2);
      assert.deepEqual(names(semantic), expected.map((r) => r.tool.name));
      for (let i = 1; i < semantic.length; i++) assert.ok(semantic[i - 1]!.score >= semantic[i]!.score);
    });

    it("route - threshold mode stops at the maximum number of candidates", async () => {
      const settings: Config = {
        ...config,
        ROUTER_MODE: "threshold",
        ROUTER_SCORE_THRESHOLD: 0.01,
        ROUTER_MAX_CANDIDATES: 2,
      };
      assert.equal(semanticOf(await route({ query: "list the files in notes" }, settings)).length, 2);
      assert.deepEqual(semanticOf(await route({ query: "tell me a joke" }, { ...settings, ROUTER_SCORE_THRESHOLD: 0.35 })), []);
    });

    it("route - the same query gives the same candidates", async () => {
      const a = await route({ query: "list the files in notes" });
      const b = await route({ query: "list the files in notes" });
      assert.deepEqual(
        a.map((c) => [c.tool?.name, c.score, c.source]),
        b.map((c) => [c.tool?.name, c.score, c.source]),
      );
    });
  });

  describe("routeStage", () => {
    const recording = (): { calls: RouteQuery[]; deps: RouteStageDeps } => {
      const calls: RouteQuery[] = [];
      return {
        calls,
        deps: {
          route: (req) => {
            calls.push(req);
            return route(req).then((candidates) => ({ candidates, warnings: [] }));
          },
          catalogStats: () => catalogStats(TOOLS),
          englishOnly: true,
        },
      };
    };

    it("route - stage hands a matched packet to the selector with its candidates", async () => {
      const packet = newPacket({ message: "please read the file notes/todo.md" });
      const { deps } = recording();
      assert.deepEqual(await routeStage(packet, deps), { next: "select" });
      assert.equal(packet.state, Packet_State.SELECTING);
      const candidates = packet.toolRouting?.candidates ?? [];
      assert.equal(candidates[0]?.tool?.name, "filesystem.read_text_file");
      for (const name of CORE_NAMES) assert.ok(names(candidates).includes(name));
      const entry = packet.reasoning?.reflectionLog.at(-1);
      assert.equal(entry?.step, "route");
      assert.match(entry?.summary ?? "", /filesystem\.read_text_file 0\.\d\d/);
      assert.match(entry?.summary ?? "", /always offered: .*time\.now/);
      assert.ok((entry?.confidence ?? 0) > 0);
    });

    it("route - stage searches with the intent's query and the packet's allow-list", async () => {
      const packet = newPacket({
        message: "first do this, then write hello to notes/a.md",
        scope: { tools: ["filesystem.write_file", "time.now"] },
      });
      intentOf(packet).query = "write hello to notes/a.md";
      const { calls, deps } = recording();
      await routeStage(packet, deps);
      assert.deepEqual(calls, [
        {
          query: "write hello to notes/a.md",
          context: [],
          filter: { tools: ["filesystem.write_file", "time.now"], pools: [], domains: [], tenant: "" },
        },
      ]);
      assert.deepEqual(names(packet.toolRouting?.candidates ?? []), ["filesystem.write_file", "time.now"]);
    });

    it("route - stage passes the turns the query points back at as its context, apart from the query", async () => {
      const packet = newPacket({ message: "turn it off" });
      intentOf(packet).query = "turn it off";
      intentOf(packet).queryContext = ["turn on the kitchen light"];
      const { calls, deps } = recording();
      await routeStage(packet, deps);
      assert.equal(calls[0]?.query, "turn it off");
      assert.deepEqual(calls[0]?.context, ["turn on the kitchen light"]);
    });

    it("route - stage falls back to the original prompt without an intent query", async () => {
      const packet = newPacket({ message: "list the files in notes" });
      const { calls, deps } = recording();
      await routeStage(packet, deps);
      assert.equal(calls[0]?.query, "list the files in notes");
      assert.deepEqual(calls[0]?.filter, { tools: [], pools: [], domains: [], tenant: "" });
    });

    it("route - stage routes within the packet's tenant", async () => {
      const packet = newPacket({ message: "list the files in notes" });
      packet.header!.tenant = "tenant-a";
      const { calls, deps } = recording();
      await routeStage(packet, deps);
      assert.equal(calls[0]?.filter?.tenant, "tenant-a");
    });

    /** A tool-need model that answers `probability` and counts how often it was asked. */
    const scorer = (probability: number) => {
      const asked: ToolNeedInput[] = [];
      const model: ToolNeedScorer = {
        probability: (input) => (asked.push(input), probability),
        relevance: () => ({ top: 0.5, coverage: 0.25, bestCoverage: 0.25, name: 0, unexplained: 3, words: 4, gap: 0.1 }),
      };
      return { asked, model };
    };

    it("route - the tool-need gate records that a message needs none of the candidates, and leaves the ending to selection", async () => {
      const packet = newPacket({ message: "write a poem about the files of my life" });
      intentOf(packet).detectedBy = "default:no-indicator";
      const { asked, model } = scorer(0.2);
      const outcome = await routeStage(packet, { ...recording().deps, toolNeed: { model, threshold: 0.5 } });
      assert.deepEqual(outcome, { next: "select" }, "a selection model may still find a tool");
      assert.equal(asked.length, 1);
      assert.equal(asked[0]?.requested, false);
      assert.equal(asked[0]?.allowList, false);
      assert.equal(asked[0]?.rule, "default:no-indicator");
      assert.equal(asked[0]?.catalog.tools, TOOLS.length, "relevance is normalised by this catalog");
      const verdict = packet.toolRouting?.toolNeed;
      assert.deepEqual([verdict?.needed, verdict?.probability, verdict?.threshold], [false, 0.2, 0.5]);
      assert.match(verdict?.reason ?? "", /^no tool needed: tool-need probability 0\.20 < 0\.50 \(best match filesystem\.\w+ 0\.\d\d\); .*set SELECTOR_MODEL.*lower ROUTER_TOOL_NEED_THRESHOLD$/);
      assert.equal(packet.toolRouting?.needsTool, false);
      const entry = packet.reasoning?.reflectionLog.at(-1);
      assert.match(entry?.summary ?? "", /tool-need probability 0\.20; .* covers 25% of the message's content words; likely no tool needed/);
    });

    it("route - a message in a language the offline embedder cannot read is not judged: it is marked unroutable offline", async () => {
      const list = TOOLS.find((t) => t.name === "filesystem.list_directory")!;
      const found = async () => ({ candidates: [candidate(list, 0.3, RoutingCandidate_Source.SEMANTIC)], warnings: [] });
      const { asked, model } = scorer(0.9);
      const deps = { ...recording().deps, route: found, toolNeed: { model, threshold: 0.5 } };
      const packet = newPacket({ message: "lis los archivos en la carpeta notes" });
      assert.deepEqual(await routeStage(packet, deps), { next: "select" }, "a selection model gets the candidates");
      assert.equal(asked.length, 0);
      const verdict = packet.toolRouting?.toolNeed;
      assert.deepEqual([verdict?.needed, verdict?.unreadLanguage], [false, "Spanish"]);
      assert.match(verdict?.reason ?? "", /^cannot route a message in Spanish offline: .*EMBEDDINGS_BASE_URL.*SELECTOR_MODEL/);
      // an embeddings endpoint reads it: the gate judges it like any other message
      const other = newPacket({ message: "lis los archivos en la carpeta notes" });
      await routeStage(other, { ...deps, englishOnly: false });
      assert.equal(asked.length, 1);
      assert.deepEqual([other.toolRouting?.toolNeed?.needed, other.toolRouting?.toolNeed?.unreadLanguage], [true, ""]);
      // offline with no candidate at all, the packet ends here with that reason, never "no tool"
      // ("notes" would match the file tools: a note is a file to the router)
      const none = newPacket({ message: "lista los archivos de la carpeta trabajo" });
      assert.deepEqual(await routeStage(none, { ...recording().deps }), { done: true });
      assert.match(none.stateReason, /^cannot route a message in Spanish offline: .* found no candidate; configure an embeddings endpoint/);
      // issue 37: one a rule found a request in (a path) gets the same answer, not a call from the path alone
      const pathOnly = newPacket({ message: "lee el archivo notes/todo.md" });
      pathOnly.toolRouting!.needsTool = true;
      await routeStage(pathOnly, deps);
      assert.deepEqual([pathOnly.toolRouting?.toolNeed?.needed, pathOnly.toolRouting?.toolNeed?.unreadLanguage], [true, "Spanish"]);
      assert.match(pathOnly.toolRouting?.toolNeed?.reason ?? "", /^cannot route a message in Spanish offline/);
    });

    it("route - the tool-need gate lets a likely message through and marks it as needing a tool", async () => {
      const packet = newPacket({ message: "show me what is in the notes folder", scope: { tools: ["filesystem.list_directory"] } });
      const { asked, model } = scorer(0.8);
      assert.deepEqual(await routeStage(packet, { ...recording().deps, toolNeed: { model, threshold: 0.5 } }), { next: "select" });
      assert.equal(asked[0]?.allowList, true);
      assert.equal(packet.toolRouting?.needsTool, true);
      assert.equal(packet.toolRouting?.toolNeed?.needed, true);
      assert.match(packet.reasoning?.reflectionLog.at(-1)?.summary ?? "", /tool-need probability 0\.80/);
    });

    it("route - a message an intent rule recognised as a request is not put to the tool-need model", async () => {
      const packet = newPacket({ message: "please read the file notes/todo.md" });
      packet.toolRouting!.needsTool = true;
      const { asked, model } = scorer(0);
      assert.deepEqual(await routeStage(packet, { ...recording().deps, toolNeed: { model, threshold: 0.5 } }), { next: "select" });
      assert.equal(asked.length, 0);
      assert.equal(packet.toolRouting?.toolNeed, undefined, "the rule decided, not the gate");
    });

    it("route - stage ends the packet when no tool in the catalog matches, saying how many tools it searched", async () => {
      const packet = newPacket({ message: "tell me a joke" });
      const { deps } = recording();
      const searched = (req: RouteQuery) => deps.route(req).then((result) => ({ ...result, searched: 12 }));
      assert.deepEqual(await routeStage(packet, { ...deps, route: searched }), { done: true });
      assert.equal(packet.state, Packet_State.COMPLETED);
      assert.equal(packet.stateReason, "no tool matched the request in the catalog (12 tools)");
      assert.equal(packet.toolRouting?.executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);
      const entry = packet.reasoning?.reflectionLog.at(-1);
      assert.equal(entry?.step, "route");
      assert.match(entry?.summary ?? "", /^no tool in the catalog matches "tell me a joke"/);
      assert.ok(semanticOf(packet.toolRouting?.candidates ?? []).length === 0);
    });
  });

  describe("config", () => {
    it("route - config defaults are the documented ones, and the schema admits no unknown keys", () => {
      assert.deepEqual(defaultConfig(), {
        ROUTER_MODE: "topk",
        ROUTER_TOP_K: 5,
        ROUTER_MIN_SCORE: 0.1,
        ROUTER_SCORE_THRESHOLD: 0.35,
        ROUTER_MAX_CANDIDATES: 10,
        ROUTER_TOOL_NEED_THRESHOLD: 0.15,
        ROUTER_DENSE_WEIGHT: 0.4,
        ROUTER_HELPER_THREAD: true,
        QDRANT_COLLECTION: "switchyard-tools",
        QDRANT_TIMEOUT_MS: 5000,
        QDRANT_REPLICATION_FACTOR: 1,
        ROUTER_DATA_DIR: ".switchyard/router",
        ROUTER_MAX_QUERY_TURNS: 2,
        LEARN_FROM_USE: true,
        LEARN_MAX_EXAMPLES_PER_TOOL: 20,
        EMBEDDINGS_BATCH_SIZE: 64,
        EMBEDDINGS_TIMEOUT_MS: 10000,
      });
      assert.equal((configSchema as { additionalProperties?: boolean }).additionalProperties, false);
      // settings whose absence means "off": the local embedder, the embedded index, no API keys, the shipped tool-need model
      const unsetMeansOff = new Set([
        "ROUTER_TOOL_NEED_MODEL",
        "EMBEDDINGS_BASE_URL",
        "EMBEDDINGS_API_KEY",
        "EMBEDDINGS_MODEL",
        "EMBEDDINGS_DIMENSIONS",
        "QDRANT_URL",
        "QDRANT_API_KEY",
      ]);
      for (const [key, property] of Object.entries(configSchema.properties)) {
        assert.match(key, /^[A-Z][A-Z0-9_]*$/);
        assert.ok("description" in property, key);
        assert.equal("default" in property, !unsetMeansOff.has(key), key);
      }
    });
  });
});
