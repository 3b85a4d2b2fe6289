import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  addDataField,
  intentOf,
  newPacket,
  Packet_State,
  routingOf,
  ToolNeedVerdictSchema,
  ToolRoutingState_ExecutionStatus,
  Turn_Role,
  TurnSchema,
} from "@switchyard/packet";
import type { Packet, RoutingCandidate } from "@switchyard/packet";
import { candidates } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { heuristicSelector } from "../src/heuristic-selector.js";
import { selectionRequestOf, selectStage } from "../src/select.js";
import type { Selector } from "../src/selector.js";

// Scores as the embedding-router's local index gives them for these requests over the
// filesystem, memory and everything servers' catalogs (rounded).
const READ_REQUEST_CANDIDATES = {
  "filesystem.read_file": 0.77,
  "filesystem.read_multiple_files": 0.75,
  "filesystem.read_text_file": 0.74,
  "filesystem.read_media_file": 0.72,
  "filesystem.get_file_info": 0.53,
  "memory.read_graph": 0.56,
};

function packetFor(message: string, cands: RoutingCandidate[], init: (p: Packet) => void = () => {}): Packet {
  const packet = newPacket({ message });
  intentOf(packet).query = message;
  routingOf(packet).candidates = cands;
  packet.state = Packet_State.SELECTING;
  init(packet);
  return packet;
}

const config: Config = defaultConfig;

describe("selector - selectStage", () => {
  it("selector - a clear read request picks read_text_file with confidence >= 0.8", async () => {
    const packet = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES));
    const outcome = await selectStage(packet, { config });

    assert.deepEqual(outcome, { next: "review" });
    const routing = routingOf(packet);
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file");
    assert.deepEqual(routing.selectedTool?.params, { path: "notes/todo.md" });
    assert.ok(routing.selectedTool!.selectionConfidence >= 0.8, `confidence ${routing.selectedTool!.selectionConfidence}`);
    assert.match(routing.selectedTool!.selectionReasoning, /required arguments 1\/1/);
    assert.equal(routing.executionStatus, ToolRoutingState_ExecutionStatus.AWAITING_CONFIDENCE);
    assert.equal(routing.needsTool, true);
    assert.equal(packet.state, Packet_State.REVIEWING);

    assert.equal(routing.alternativeTools.length, 2);
    for (const alt of routing.alternativeTools) {
      assert.notEqual(alt.toolName, "filesystem.read_text_file");
      assert.ok(alt.selectionConfidence < routing.selectedTool!.selectionConfidence);
      assert.ok(alt.selectionReasoning.length > 0);
    }
    assert.deepEqual(routing.alternativeTools[0]?.params, { paths: ["notes/todo.md"] });

    const log = packet.reasoning!.reflectionLog;
    assert.equal(log.length, 1);
    assert.equal(log[0]?.step, "select");
    assert.match(log[0]!.summary, /Selected filesystem\.read_text_file/);
    assert.equal(log[0]?.confidence, routing.selectedTool!.selectionConfidence);
  });

  it("selector - an ambiguous request stays below 0.7", async () => {
    const packet = packetFor(
      "notes/todo.md",
      candidates({ "filesystem.read_text_file": 0.27, "filesystem.get_file_info": 0.23, "filesystem.write_file": 0.24, "filesystem.search_files": 0.23, "filesystem.read_file": 0.25 }),
    );
    await selectStage(packet, { config });
    const confidence = routingOf(packet).selectedTool!.selectionConfidence;
    assert.ok(confidence < 0.7, `confidence ${confidence}`);
  });

  it("selector - a vague request with no arguments stays below 0.7", async () => {
    const packet = packetFor(
      "do something with my files",
      candidates({ "filesystem.read_multiple_files": 0.79, "filesystem.read_text_file": 0.78, "filesystem.write_file": 0.76, "filesystem.list_allowed_directories": 0.4 }),
    );
    await selectStage(packet, { config });
    assert.ok(routingOf(packet).selectedTool!.selectionConfidence < 0.7);
  });

  it("selector - a tool that takes no argument is not sure of a request that names nothing it says (issue 37)", async () => {
    // as the default fleet routes it: list_directory lacks its path, list_allowed_directories takes none
    const packet = packetFor(
      "what's on my to-do list?",
      candidates({ "filesystem.list_directory": 0.64, "filesystem.list_allowed_directories": 0.62, "filesystem.list_directory_with_sizes": 0.57, "filesystem.edit_file": 0.22, "memory.search_nodes": 0 }),
    );
    await selectStage(packet, { config });
    const selected = routingOf(packet).selectedTool!;
    assert.ok(selected.selectionConfidence < 0.7, `${selected.toolName} ${selected.selectionConfidence}`);
    assert.match(selected.selectionReasoning, /takes no argument; its name and description say 0 % of what the request speaks of/);
  });

  it("selector - a tool that takes no argument is sure of a request that names what it says", async () => {
    const packet = packetFor(
      "which directories can you access?",
      candidates({ "filesystem.list_allowed_directories": 0.77, "filesystem.list_directory": 0.32, "filesystem.create_directory": 0.32, "filesystem.directory_tree": 0.28 }),
    );
    await selectStage(packet, { config });
    const selected = routingOf(packet).selectedTool!;
    assert.equal(selected.toolName, "filesystem.list_allowed_directories");
    assert.ok(selected.selectionConfidence >= 0.7, `confidence ${selected.selectionConfidence}`);
    assert.match(selected.selectionReasoning, /say 100 % of what the request speaks of/);
  });

  it("selector - no candidates: SKIPPED, COMPLETED, with a reflection", async () => {
    const packet = packetFor("please read the file notes/todo.md", []);
    const outcome = await selectStage(packet, { config });
    assert.deepEqual(outcome, { done: true });
    assert.equal(routingOf(packet).executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);
    assert.equal(routingOf(packet).selectedTool, undefined);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.reasoning!.reflectionLog[0]?.step, "select");
    assert.match(packet.reasoning!.reflectionLog[0]!.summary, /No candidate tools/);
    assert.equal(packet.stateReason, "no tool selected: the router offered no candidate tools");
  });

  it("selector - a missing required argument is named and still handed to review", async () => {
    const packet = packetFor("please read the file", candidates({ "filesystem.read_text_file": 0.8, "filesystem.get_file_info": 0.5 }));
    const outcome = await selectStage(packet, { config });
    assert.deepEqual(outcome, { next: "review" });
    const selected = routingOf(packet).selectedTool!;
    assert.equal(selected.toolName, "filesystem.read_text_file");
    assert.deepEqual(selected.params, {});
    assert.match(selected.selectionReasoning, /Invalid arguments: path: is required/);
    assert.ok(selected.selectionConfidence <= 0.5);
    assert.match(packet.reasoning!.reflectionLog[0]!.summary, /arguments are invalid: path: is required/);
    assert.equal(packet.state, Packet_State.REVIEWING);
  });

  it("selector - a write request fills content and path", async () => {
    const packet = packetFor(
      "write hello world to notes/a.txt",
      candidates({ "filesystem.write_file": 0.65, "filesystem.get_file_info": 0.11, "filesystem.read_text_file": 0.1, "filesystem.edit_file": 0.1 }),
    );
    await selectStage(packet, { config });
    const selected = routingOf(packet).selectedTool!;
    assert.equal(selected.toolName, "filesystem.write_file");
    assert.deepEqual(selected.params, { path: "notes/a.txt", content: "hello world" });
    assert.ok(selected.selectionConfidence >= 0.8, `confidence ${selected.selectionConfidence}`);
  });

  it("selector - a memory search picks search_nodes with its query", async () => {
    const packet = packetFor(
      "search my memory for Alice",
      candidates({ "memory.search_nodes": 0.78, "filesystem.search_files": 0.42, "memory.read_graph": 0.3, "memory.open_nodes": 0.27 }),
    );
    await selectStage(packet, { config });
    assert.equal(routingOf(packet).selectedTool?.toolName, "memory.search_nodes");
    assert.deepEqual(routingOf(packet).selectedTool?.params, { query: "Alice" });
  });

  it("selector - an equivalent runner-up does not lower confidence", async () => {
    // list_directory and list_directory_with_sizes would both list notes; list_allowed_directories would not.
    const packet = packetFor(
      "list the notes directory",
      candidates({ "filesystem.list_allowed_directories": 0.79, "filesystem.list_directory": 0.78, "filesystem.list_directory_with_sizes": 0.77 }),
    );
    await selectStage(packet, { config });
    const selected = routingOf(packet).selectedTool!;
    assert.match(selected.toolName, /^filesystem\.list_directory/);
    assert.ok(selected.selectionConfidence >= 0.8, `confidence ${selected.selectionConfidence}`);
    assert.match(selected.selectionReasoning, /ahead of filesystem\.list_allowed_directories/);
  });

  it("selector - confidence is the best one's temperature-scaled share: a lone candidate is sure, a colder temperature surer", async () => {
    const lone = packetFor("please read the file notes/todo.md", candidates({ "filesystem.read_text_file": 0.74 }));
    await selectStage(lone, { config });
    assert.equal(routingOf(lone).selectedTool!.selectionConfidence, 1);

    const at = async (temperature: number) => {
      const packet = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES));
      await selectStage(packet, { config: { ...config, SELECTOR_CONFIDENCE_TEMPERATURE: temperature } });
      return routingOf(packet).selectedTool!.selectionConfidence;
    };
    const [cold, shipped, warm] = [await at(0.03), await at(0.06), await at(0.2)];
    assert.ok(cold > shipped && shipped > warm, `${cold} > ${shipped} > ${warm}`);
    assert.ok(warm < 0.7, "five close candidates leave a warm temperature unsure");
  });

  it("selector - the current step is read before the original prompt", async () => {
    const packet = packetFor(
      "read notes/a.txt and then write done to notes/b.txt",
      candidates({ "filesystem.read_text_file": 0.6, "filesystem.write_file": 0.6 }),
      (p) => {
        intentOf(p).steps = ["read notes/a.txt", "write done to notes/b.txt"];
        intentOf(p).stepIndex = 1;
      },
    );
    await selectStage(packet, { config });
    assert.equal(routingOf(packet).selectedTool?.toolName, "filesystem.write_file");
    assert.deepEqual(routingOf(packet).selectedTool?.params, { path: "notes/b.txt", content: "done" });
  });

  it("selector - a missing argument falls back to the original prompt", async () => {
    const packet = packetFor("can you show me notes/todo.md", candidates({ "filesystem.read_text_file": 0.7 }), (p) => {
      intentOf(p).query = "show it";
      intentOf(p).steps = ["show it"];
    });
    const request = selectionRequestOf(packet);
    assert.equal(request.text, "show it");
    assert.deepEqual(request.fallbackTexts, ["can you show me notes/todo.md"]);
    await selectStage(packet, { config });
    assert.deepEqual(routingOf(packet).selectedTool?.params, { path: "notes/todo.md" });
  });

  it("selector - words that name properties of plain objects are read as words", async () => {
    // "constructor" once found Object.prototype.constructor in the verb and number tables and threw.
    const packet = packetFor("read the constructor notes in notes/todo.md", candidates(READ_REQUEST_CANDIDATES));
    assert.deepEqual(await selectStage(packet, { config }), { next: "review" });
    assert.equal(routingOf(packet).selectedTool?.toolName, "filesystem.read_text_file");
  });

  it("selector - SELECTOR_ALTERNATIVES bounds the alternatives", async () => {
    const packet = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES));
    await selectStage(packet, { config: { ...config, SELECTOR_ALTERNATIVES: 0 } });
    assert.equal(routingOf(packet).alternativeTools.length, 0);
  });

  it("selector - a packet back from reinjection loses the previous review", async () => {
    const packet = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES), (p) => {
      const routing = routingOf(p);
      routing.reviewConfidence = 0.9;
      routing.reviewReasoning = "previous step";
      routing.dryRun = true;
      routing.executionStatus = ToolRoutingState_ExecutionStatus.EXECUTED;
    });
    await selectStage(packet, { config });
    const routing = routingOf(packet);
    assert.equal(routing.reviewConfidence, 0);
    assert.equal(routing.reviewReasoning, "");
    assert.equal(routing.dryRun, false);
    assert.equal(routing.executionStatus, ToolRoutingState_ExecutionStatus.AWAITING_CONFIDENCE);
  });
});

describe("selector - a later step inherits the folder an earlier one listed", () => {
  const listed = (packet: Packet, path: string, output: string, tool = "filesystem.list_directory") =>
    addDataField(packet, { key: "tool_result", value: { tool, params: { path }, success: true, output, error: null }, type: "tool_execution_result", source: "mcp:filesystem" });
  const step2 = (init: (p: Packet) => void) =>
    packetFor("read todo.md", candidates({ "filesystem.read_text_file": 0.8 }), (p) => {
      intentOf(p).steps = ["list the notes folder", "read todo.md"];
      intentOf(p).stepIndex = 1;
      init(p);
    });

  it("selector - 'read todo.md' after a listing of notes/ that shows it reads notes/todo.md, and says why", async () => {
    const packet = step2((p) => listed(p, "notes", "[FILE] ideas.md\n[FILE] todo.md"));
    await selectStage(packet, { config });
    assert.deepEqual(routingOf(packet).selectedTool?.params, { path: "notes/todo.md" });
    assert.match(routingOf(packet).selectedTool?.selectionReasoning ?? "", /Paths from earlier steps: path todo\.md → notes\/todo\.md/);
  });

  it("selector - nothing is guessed: a name no listing shows, or two folders show, or only a file's text mentions, stays as written", async () => {
    const cases: [string, (p: Packet) => void][] = [
      ["not listed", (p) => listed(p, "notes", "[FILE] ideas.md")],
      ["listed in two folders", (p) => (listed(p, "notes", "[FILE] todo.md"), listed(p, "archive", "[FILE] todo.md"))],
      ["mentioned in a file's text", (p) => listed(p, "notes/plan.md", "see todo.md for the rest", "filesystem.read_text_file")],
    ];
    for (const [name, init] of cases) {
      const packet = step2(init);
      await selectStage(packet, { config });
      assert.deepEqual(routingOf(packet).selectedTool?.params, { path: "todo.md" }, name);
    }
  });
});

describe("selector - a follow-up that asks for another object", () => {
  const turn = (role: Turn_Role, content: string) => create(TurnSchema, { role, content });
  /** The selected call for a follow-up step whose query points back at "read notes/todo.md". */
  const selectFollowUp = async (step: string, scores: Record<string, number>, history = [turn(Turn_Role.USER, "read notes/todo.md")]) => {
    const packet = newPacket({ message: step, history });
    intentOf(packet).steps = [step];
    intentOf(packet).query = step;
    intentOf(packet).queryContext = ["read notes/todo.md"];
    routingOf(packet).candidates = candidates(scores);
    packet.state = Packet_State.SELECTING;
    await selectStage(packet, { config });
    return routingOf(packet).selectedTool;
  };

  it("selector - \"and the other one?\" after \"read notes/todo.md\" does not read notes/todo.md again: the path is missing", async () => {
    const selected = await selectFollowUp("and the other one?", { "filesystem.read_text_file": 0.8 });
    assert.equal(selected?.toolName, "filesystem.read_text_file");
    assert.deepEqual(selected?.params, {}, "not the file the earlier turn named");
    assert.match(selected?.selectionReasoning ?? "", /path/);
  });

  it("selector - \"and the other one?\" after a listing and a read takes the file the listing showed and the read did not", async () => {
    const history = [
      turn(Turn_Role.USER, "list the notes folder"),
      turn(Turn_Role.TOOL, "[FILE] todo.md\n[FILE] ideas.md"),
      turn(Turn_Role.USER, "read notes/todo.md"),
      turn(Turn_Role.ASSISTANT, "- buy milk"),
    ];
    assert.deepEqual((await selectFollowUp("and the other one?", { "filesystem.read_text_file": 0.8 }, history))?.params, { path: "notes/ideas.md" });
  });

  it("selector - \"and the other one?\" is the same action on another object: a tool that takes no argument does not win it", async () => {
    // as routed in the fleet: read_graph reads too and needs nothing, so its arguments would fit perfectly
    const selected = await selectFollowUp("and the other one?", { "filesystem.read_text_file": 0.65, "filesystem.read_multiple_files": 0.53, "memory.read_graph": 0.4 });
    assert.equal(selected?.toolName, "filesystem.read_text_file", selected?.selectionReasoning);
  });

  it("selector - \"do it again\" still takes its values from the earlier turn", async () => {
    assert.deepEqual((await selectFollowUp("do it again", { "filesystem.read_text_file": 0.8 }, []))?.params, { path: "notes/todo.md" });
  });
});

describe("selector - selectStage with a Selector", () => {
  it("selector - the heuristic Selector gives the same answer as selectStage", async () => {
    const a = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES));
    const b = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES));
    await selectStage(a, { config });
    await selectStage(b, { config, selector: heuristicSelector(config) });
    assert.deepEqual(routingOf(b).selectedTool, routingOf(a).selectedTool);
    assert.deepEqual(routingOf(b).alternativeTools, routingOf(a).alternativeTools);
  });

  it("selector - the router's 'no tool needed' ends the packet for the heuristic; any other selector still sees the candidates", async () => {
    const reason = "no tool needed: tool-need probability 0.05 < 0.15 (best match filesystem.read_text_file 0.74); …";
    const gated = (p: Packet) => (routingOf(p).toolNeed = create(ToolNeedVerdictSchema, { needed: false, probability: 0.05, threshold: 0.15, reason }));
    const offline = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES), gated);
    assert.deepEqual(await selectStage(offline, { config, selector: heuristicSelector(config) }), { done: true });
    assert.equal(offline.stateReason, reason);
    assert.equal(routingOf(offline).executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);

    const seen: string[][] = [];
    const model: Selector = {
      kind: "scripted model",
      select: (request) => {
        seen.push(request.candidates.map((c) => c.tool?.name ?? ""));
        assert.equal(request.notNeeded, reason, "it is told, and decides for itself");
        return { choices: [{ toolName: "filesystem.read_text_file", params: { path: "notes/todo.md" }, confidence: 0.9, reasoning: "a file" }], reasoning: "a file" };
      },
    };
    const withModel = packetFor("please read the file notes/todo.md", candidates(READ_REQUEST_CANDIDATES), gated);
    assert.deepEqual(await selectStage(withModel, { config, selector: model }), { next: "review" });
    assert.equal(seen[0]?.length, Object.keys(READ_REQUEST_CANDIDATES).length);
    assert.equal(routingOf(withModel).selectedTool?.toolName, "filesystem.read_text_file");
  });

  it("selector - a choice outside the candidates is never selected", async () => {
    const outside: Selector = {
      kind: "scripted",
      select: () => ({ choices: [{ toolName: "filesystem.write_file", params: { path: "x", content: "y" }, confidence: 0.99, reasoning: "made up" }], reasoning: "made up" }),
    };
    const packet = packetFor("please read the file notes/todo.md", candidates({ "filesystem.read_text_file": 0.8 }));
    const outcome = await selectStage(packet, { config, selector: outside });
    assert.deepEqual(outcome, { done: true });
    assert.equal(routingOf(packet).selectedTool, undefined);
    assert.equal(routingOf(packet).executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(packet.reasoning!.reflectionLog[0]!.summary, /outside the candidates: filesystem\.write_file/);
    assert.equal(packet.stateReason, "no tool selected among 1 candidates: made up Dropped choices outside the candidates: filesystem.write_file.");
  });

  it("selector - invalid arguments cap a selector's confidence at 0.5", async () => {
    const sure: Selector = {
      kind: "scripted",
      select: () => ({ choices: [{ toolName: "filesystem.read_text_file", params: { path: 42 }, confidence: 0.95, reasoning: "sure" }], reasoning: "sure" }),
    };
    const packet = packetFor("please read the file notes/todo.md", candidates({ "filesystem.read_text_file": 0.8 }));
    assert.deepEqual(await selectStage(packet, { config, selector: sure }), { next: "review" });
    const selected = routingOf(packet).selectedTool!;
    assert.equal(selected.selectionConfidence, 0.5);
    assert.match(selected.selectionReasoning, /path: must be string/);
  });
});
