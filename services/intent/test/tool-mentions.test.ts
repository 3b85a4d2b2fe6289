import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { newPacket, TurnSchema, Turn_Role } from "@switchyard/packet";
import { defaultConfig } from "../src/config.js";
import { decideToolNeed, decideIntent } from "../src/intent.js";
import { mentionedTool } from "../src/tool-mentions.js";

const CATALOG = [
  "everything.echo",
  "everything.get-sum",
  "everything.trigger-long-running-operation",
  "memory.search_nodes",
  "memory.open_nodes",
  "filesystem.read_text_file",
];

describe("intent - tool mentions", () => {
  const cases: [string, string | undefined][] = [
    ["trigger the long running operation for 3 seconds", "everything.trigger-long-running-operation"],
    ["get the sum of 2 and 3", "everything.get-sum"],
    ["open the nodes Alice and Bob", "memory.open_nodes"],
    ["echo this back to me", undefined],
    ["the sum of my fears", undefined],
    ["", undefined],
  ];
  for (const [text, expected] of cases) {
    it(`intent - mentionedTool(${JSON.stringify(text)}) is ${expected ?? "none"}`, () => {
      assert.equal(mentionedTool(text, CATALOG), expected);
    });
  }

  it("intent - a message that names a catalog tool needs it, when no rule decided otherwise", () => {
    const catalog = { toolNames: () => CATALOG };
    assert.deepEqual(decideToolNeed("trigger the long running operation", [], catalog), {
      needsTool: true,
      rule: "tool:everything.trigger-long-running-operation",
    });
    assert.equal(decideToolNeed("trigger the long running operation", []).needsTool, false, "no catalog, no claim");
    // Chat stays chat even when it names a tool.
    assert.equal(decideToolNeed("thanks for getting the sum!", [], catalog).needsTool, false);
    assert.equal(decideToolNeed("how do I get the sum in excel?", [], catalog).needsTool, false);
  });

  it("intent - the stage routes a packet that names a tool", () => {
    const packet = newPacket({
      message: "get the sum of 2 and 3",
      history: [create(TurnSchema, { role: Turn_Role.USER, content: "hello" })],
    });
    assert.deepEqual(decideIntent(packet, defaultConfig, { toolNames: () => CATALOG }), { next: "route" });
    assert.equal(packet.intent?.detectedBy, "tool:everything.get-sum");
  });
});
