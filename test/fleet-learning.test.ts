import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();

interface Tool {
  name: string;
  pool: string;
  domains: string[];
  examples: string[];
  core: boolean;
}

interface Candidate {
  tool: Tool;
  score: number;
  source: string;
  exampleId?: string;
}

/** The README's command that teaches a tool by hand: its tool and its body, as a reader would copy them. */
function readmeExamplesCommand(): { tool: string; body: { examples: string[] } } {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const found = /curl -s localhost:8080\/v1\/tools\/([\w.-]+)\/examples -H 'content-type: application\/json' \\\n\s*-d '([^']+)'/.exec(readme);
  assert.ok(found, "the README teaches a tool by hand with curl");
  return { tool: found[1]!, body: JSON.parse(found[2]!) as { examples: string[] } };
}

describe("fleet learning - request controls, learning from use, feedback and hand-added examples", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet();
  });

  after(async () => {
    await t?.close();
  });

  async function tools(): Promise<Map<string, Tool>> {
    const { status, json } = await t.get("/v1/tools");
    assert.equal(status, 200);
    return new Map((json.tools as Tool[]).map((tool) => [tool.name, tool]));
  }

  /** Waits until the tool's examples (as GET /v1/tools shows them) satisfy `check`. */
  async function examplesOf(name: string, check: (examples: string[]) => boolean, what: string): Promise<string[]> {
    return eventually(
      async () => {
        const examples = (await tools()).get(name)?.examples ?? [];
        return check(examples) ? examples : undefined;
      },
      15_000,
      what,
    );
  }

  async function route(body: object): Promise<Candidate[]> {
    const { status, json } = await t.post("/v1/route", body);
    assert.equal(status, 200, JSON.stringify(json));
    return json.candidates as Candidate[];
  }

  it("fleet learning - the README's examples command changes no other request's outcome; correct:false takes back the example that made a call", async () => {
    const outcome = async (message: string) => {
      const { json } = await t.post("/v1/packets", { message });
      return [message, json.state, json.toolRouting?.selectedTool?.toolName ?? "", json.toolRouting?.executionStatus ?? ""];
    };
    const requests = ["delete notes/todo.md", "list the files in notes"];
    const before = await Promise.all(requests.map(outcome));
    const { tool, body } = readmeExamplesCommand();
    const taught = await t.post(`/v1/tools/${tool}/examples`, body);
    assert.equal(taught.status, 200, taught.text);
    // the router has indexed them once a request like one of them is scored by it
    const like = body.examples[0]!.replace("notes/todo.md", "notes/ideas.txt");
    await eventually(async () => ((await route({ message: like, topK: 1 }))[0]?.exampleId ? true : undefined), 15_000, "the README's examples indexed");
    assert.deepEqual(await Promise.all(requests.map(outcome)), before, "outcomes as before the README's examples");
    const { json: stored } = await t.get(`/v1/tools/${tool}/examples`);
    assert.deepEqual(stored.examples.map((e: { text: string }) => e.text).sort(), [...body.examples].sort(), "listed as taught");

    // a misleading example makes a call; correct:false takes that example back
    const wrong = "show me what the recipe says";
    assert.equal((await t.post("/v1/tools/filesystem.get_file_info/examples", { examples: [wrong] })).status, 200);
    const asked = "what does the recipe in notes/todo.md say";
    const [hit] = await eventually(async () => {
      const found = await route({ message: asked, topK: 1 });
      return found[0]?.tool.name === "filesystem.get_file_info" && found[0].exampleId ? found : undefined;
    }, 15_000, "the misleading example indexed");
    const { json: packet } = await t.post("/v1/packets", { message: asked });
    assert.equal(packet.toolRouting.selectedTool?.toolName, "filesystem.get_file_info", JSON.stringify(packet.reasoning.reflectionLog));
    const { status, json: feedback } = await t.post(`/v1/packets/${packet.header.packetId}/feedback`, { correct: false });
    assert.equal(status, 200, JSON.stringify(feedback));
    assert.equal(feedback.removedExample, hit!.exampleId);
    const { json: listed } = await t.get("/v1/tools/filesystem.get_file_info/examples");
    assert.ok(!listed.examples.some((e: { text: string }) => e.text === wrong), "the misleading example is gone");
    for (const e of listed.examples as { id: string }[]) assert.equal((await t.delete(`/v1/tools/filesystem.get_file_info/examples/${e.id}`)).status, 200);
  });

  it("fleet learning - a call its session goes on from becomes an example of its tool; feedback moves it to the right one", async () => {
    const sessionId = "learning-session";
    const query = "please read the file notes/todo.md";
    const { json: packet } = await t.post("/v1/packets", { message: query, sessionId });
    assert.equal(packet.toolRouting.executionStatus, "EXECUTED", JSON.stringify(packet.reasoning.reflectionLog));
    assert.equal(packet.toolRouting.selectedTool.toolName, "filesystem.read_text_file");
    assert.deepEqual(packet.intent.domains, ["files"], "the intent records the conversation's domains");
    // The session's next request, which does not correct the call, confirms it.
    await t.post("/v1/packets", { message: "thanks!", sessionId });
    await examplesOf("filesystem.read_text_file", (examples) => examples.includes(query), "the query learned by read_text_file");

    const { status, json: feedback } = await t.post(`/v1/packets/${packet.header.packetId}/feedback`, {
      correct: false,
      tool: "filesystem.get_file_info",
    });
    assert.equal(status, 200, JSON.stringify(feedback));
    assert.deepEqual(feedback, {
      packetId: packet.header.packetId,
      query,
      removedFrom: "filesystem.read_text_file",
      addedTo: "filesystem.get_file_info",
      removedExample: "",
    });
    await examplesOf("filesystem.read_text_file", (examples) => !examples.includes(query), "the query gone from read_text_file");
    await examplesOf("filesystem.get_file_info", (examples) => examples.includes(query), "the query added to get_file_info");

    assert.equal((await t.post("/v1/packets/no-such-packet/feedback", { correct: false })).status, 404);
    const bad = await t.post(`/v1/packets/${packet.header.packetId}/feedback`, { correct: false, tool: "no.such_tool" });
    assert.equal(bad.status, 404, bad.text);
    assert.equal((await t.post(`/v1/packets/${packet.header.packetId}/feedback`, { tool: "x.y" })).status, 400);
  });

  it("fleet learning - examples added by hand are indexed: routing finds the tool by them", async () => {
    const example = "how heavy is the holiday photo album";
    const before = await route({ message: example, topK: 1 });
    assert.notEqual(before[0]?.tool.name, "filesystem.get_file_info", "not found by that wording before");

    const { status, json } = await t.post("/v1/tools/filesystem.get_file_info/examples", { examples: [example] });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.tool, "filesystem.get_file_info");
    assert.equal(json.added, 1);
    assert.ok(json.examples.includes(example));
    await examplesOf("filesystem.get_file_info", (examples) => examples.includes(example), "the example in the catalog");
    await eventually(
      async () => ((await route({ message: example, topK: 1 }))[0]?.tool.name === "filesystem.get_file_info" ? true : undefined),
      15_000,
      "routing to find get_file_info by its new example",
    );

    assert.equal((await t.post("/v1/tools/no.such_tool/examples", { examples: ["x"] })).status, 404);
    assert.equal((await t.post("/v1/tools/filesystem.get_file_info/examples", { examples: [] })).status, 400);
  });

  it("fleet learning - route-only never returns a tool outside the request's pools, domains and tools", async () => {
    const catalog = await tools();
    assert.equal(catalog.get("filesystem.read_text_file")?.pool, "filesystem", "a server's tools are its pool by default");
    assert.deepEqual(catalog.get("memory.search_nodes")?.domains, ["memory"]);
    const messages = ["read notes/todo.md", "search my memory for Alice", "list the files in notes", "what time is it", "delete it"];
    const filters: { pools?: string[]; domains?: string[]; tools?: string[] }[] = [
      { pools: ["memory"] },
      { pools: ["filesystem"] },
      { domains: ["files"] },
      { domains: ["memory"] },
      { tools: ["filesystem.list_directory", "memory.read_graph"] },
      { pools: ["filesystem"], domains: ["memory"] },
      { pools: ["memory", "filesystem"], tools: ["memory.search_nodes"] },
    ];
    for (const message of messages) {
      for (const filter of filters) {
        for (const candidate of await route({ message, topK: 10, ...filter })) {
          const tool = catalog.get(candidate.tool.name)!;
          const where = `${candidate.tool.name} for ${JSON.stringify(message)} with ${JSON.stringify(filter)}`;
          if (filter.pools) assert.ok(filter.pools.includes(tool.pool), where);
          if (filter.domains) assert.ok(tool.domains.some((d) => filter.domains!.includes(d)), where);
          if (filter.tools) assert.ok(filter.tools.includes(tool.name), where);
        }
      }
    }
    const memoryOnly = await route({ message: "read notes/todo.md", pools: ["memory"] });
    assert.ok(memoryOnly.length > 0, "the memory pool's core tool is still offered");
  });

  it("fleet learning - a packet asking for a pool routes within it", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "please read the file notes/todo.md", pools: ["memory"] });
    assert.deepEqual(packet.content.scope.pools, ["memory"]);
    const names: string[] = packet.toolRouting.candidates.map((c: Candidate) => c.tool.name);
    assert.ok(names.every((name) => name.startsWith("memory.")), names.join(", "));
    assert.notEqual(packet.toolRouting.selectedTool?.toolName, "filesystem.read_text_file");
  });

  it("fleet learning - route-only: a message that points back borrows the turn before", async () => {
    const alone = await route({ message: "do that again", topK: 3 });
    assert.ok(!alone.some((c) => c.source === "SEMANTIC" && c.tool.name === "filesystem.list_directory"), "no context, no match");
    const withHistory = await route({
      message: "do that again",
      topK: 3,
      history: [
        { role: "user", content: "list the directory notes" },
        { role: "assistant", content: "todo.md" },
        { role: "user", content: "thanks!" },
      ],
    });
    assert.equal(withHistory[0]?.tool.name, "filesystem.list_directory", JSON.stringify(withHistory.map((c) => c.tool.name)));
  });
});
