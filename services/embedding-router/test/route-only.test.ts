import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { create, equals } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { newPacket, RouteRequestSchema, RoutingCandidate_Source, ToolNeedVerdictSchema } from "@switchyard/packet";
import type { RouteResponse } from "@switchyard/packet";
import { catalogStats, EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { ToolNeedInput, ToolNeedScorer } from "@switchyard/retrieval";
import { catalogTool as tool } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import { routeOnly } from "../src/route-only.js";
import type { RouteOnlyDeps } from "../src/route-only.js";
import { routeCandidates, routeStage } from "../src/route.js";

const TOOLS = [
  tool({ name: "restart_deployment", description: "Restart a Kubernetes deployment of a service, such as payment-api or checkout.", inputSchema: { type: "object", properties: { deployment: { type: "string" } }, required: ["deployment"] } }),
  tool({ name: "scale_deployment", description: "Scale a Kubernetes deployment to a number of replicas.", inputSchema: { type: "object", properties: { deployment: { type: "string" }, replicas: { type: "integer" } } } }),
  tool({ name: "send_slack_message", description: "Send a message to a Slack channel.", inputSchema: { type: "object", properties: { channel: { type: "string" }, text: { type: "string" } }, required: ["channel", "text"] } }),
  tool({ name: "list_calendar_events", description: "List the events in the user's calendar for a day.", examples: ["what's on my agenda for tomorrow"] }),
  tool({ name: "time.now", description: "Get the current date and time in a time zone.", core: true }),
];

describe("route-only - what POST /v1/route answers", () => {
  const index = new EmbeddedIndex(new LocalEmbedder());
  const config = defaultConfig();
  const asked: ToolNeedInput[] = [];
  const model: ToolNeedScorer = {
    probability: (input) => (asked.push(input), input.query.includes("poem") ? 0.1 : 0.7),
    relevance: () => ({ top: 0.5, coverage: 0.5, bestCoverage: 0.5, name: 0, unexplained: 1, words: 3, gap: 0.1 }),
  };
  const deps: RouteOnlyDeps = {
    route: async (req) => ({ candidates: await routeCandidates(index, TOOLS.filter((t) => t.core), req, config), warnings: [] }),
    catalogStats: () => catalogStats(TOOLS),
    englishOnly: true,
    toolNeed: { model, threshold: 0.5 },
    correctSpelling: (text) => index.correctSpelling(text),
    maxQueryTurns: config.ROUTER_MAX_QUERY_TURNS,
  };
  const route = (message: string, more: MessageInitShape<typeof RouteRequestSchema> = {}, tenant = "acme"): Promise<RouteResponse> =>
    routeOnly(create(RouteRequestSchema, { message, ...more }), tenant, deps);
  const byName = (answer: RouteResponse, name: string) => answer.candidates.find((c) => c.tool?.name === name);

  before(async () => {
    await index.upsert(TOOLS);
  });

  it("route-only - each candidate names the request's words it shares, as written (typos too), strongest first", async () => {
    const answer = await route("please restrat the paymnet-api deploymnet");
    // the words only restart_deployment has (rarest in the catalog) before the one two tools share, each in the request's order
    assert.deepEqual(byName(answer, "restart_deployment")?.matchedWords, ["restrat", "paymnet", "api", "deploymnet"]);
    assert.deepEqual(byName(answer, "scale_deployment")?.matchedWords, ["deploymnet"]);
    // a core tool offered whatever the query shares nothing with it
    assert.deepEqual(byName(answer, "time.now")?.matchedWords, []);
    assert.equal(byName(answer, "restart_deployment")?.example, "", "scored by its own text");
  });

  it("route-only - a candidate an example scored carries that example's text beside its id, and the words it matched", async () => {
    const answer = await route("what is on my agenda tomorrow?");
    const calendar = byName(answer, "list_calendar_events");
    assert.equal(calendar?.source, RoutingCandidate_Source.SEMANTIC);
    assert.equal(calendar?.example, "what's on my agenda for tomorrow");
    assert.match(calendar?.exampleId ?? "", /^[0-9a-f]{16}$/);
    assert.deepEqual(calendar?.matchedWords, ["agenda", "tomorrow"]);
  });

  it("route-only - never more than eight words, each once", async () => {
    const long = "restart restarting restarts kubernetes deployment payment api service checkout such scale replicas number kubernetes";
    const words = byName(await route(long), "restart_deployment")?.matchedWords ?? [];
    assert.equal(words.length, 8);
    assert.equal(new Set(words).size, 8);
  });

  it("route-only - need is the verdict the route stage records for a packet with the same message", async () => {
    for (const message of ["send hello to the team channel on slack", "write a poem about slack channels"]) {
      const answer = await route(message);
      const packet = newPacket({ message });
      await routeStage(packet, deps);
      assert.ok(answer.need, message);
      assert.ok(equals(ToolNeedVerdictSchema, answer.need, packet.toolRouting!.toolNeed!), message);
    }
    const [needed, chat] = [await route("send hello to the team channel on slack"), await route("write a poem about slack channels")];
    assert.deepEqual([needed.need?.needed, needed.need?.probability, needed.need?.threshold], [true, 0.7, 0.5]);
    assert.match(chat.need?.reason ?? "", /^no tool needed: tool-need probability 0\.10 < 0\.50 \(best match send_slack_message/);
  });

  it("route-only - the gate sees the request's allow-list, and nothing matched means no verdict", async () => {
    asked.length = 0;
    const allowed = await route("send hello on slack", { tools: ["send_slack_message"] });
    assert.deepEqual(allowed.candidates.map((c) => c.tool?.name), ["send_slack_message"]);
    assert.equal(asked.at(-1)?.allowList, true);
    const none = await route("zebra quartz");
    assert.deepEqual(none.candidates.map((c) => c.source), [RoutingCandidate_Source.CORE]);
    assert.equal(none.need, undefined);
  });

  it("route-only - a message the offline embedder cannot read is marked so, as the route stage marks it", async () => {
    const answer = await route("envía hola al canal de slack");
    assert.equal(answer.need?.unreadLanguage, "Spanish");
    assert.match(answer.need?.reason ?? "", /^cannot route a message in Spanish offline/);
  });
});
