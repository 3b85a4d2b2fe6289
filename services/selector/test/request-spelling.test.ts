import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { intentOf, newPacket, Packet_State, RoutingCandidate_Source, RoutingCandidateSchema, routingOf, SpellingCorrectionSchema } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { catalogTool as tool } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import { selectionRequestOf, selectStage } from "../src/select.js";

const thermostat = tool({
  name: "set_thermostat",
  description: "Set the thermostat's mode and temperature.",
  inputSchema: {
    type: "object",
    properties: { mode: { type: "string", enum: ["heat", "cool", "auto"] }, temperature: { type: "number" }, note: { type: "string" } },
    required: ["mode"],
  },
});

/** A packet as the router hands it on: the candidates with their scores, and the words it read otherwise. */
function routed(message: string, spelling: [string, string][]): Packet {
  const packet = newPacket({ message });
  intentOf(packet).query = message;
  const routing = routingOf(packet);
  routing.candidates = [create(RoutingCandidateSchema, { tool: thermostat, score: 0.7, source: RoutingCandidate_Source.SEMANTIC })];
  routing.spelling = spelling.map(([written, read]) => create(SpellingCorrectionSchema, { written, read }));
  packet.state = Packet_State.SELECTING;
  return packet;
}

describe("selector - spelling", () => {
  it("selector - spelling: a correction to an enum value of the candidate fills its argument, and the step log says so", async () => {
    const packet = routed("set the thermostat to coll at 21 degrees", [["coll", "cool"]]);
    await selectStage(packet, { config: defaultConfig });
    assert.equal(routingOf(packet).selectedTool?.params?.["mode"], "cool");
    const entry = packet.reasoning?.reflectionLog.find((e) => e.step === "select" && e.summary.startsWith("Read"));
    assert.equal(entry?.summary, `Read "coll" as "cool": words of the candidates' names or arguments.`);
  });

  it("selector - spelling: without the router's correction the misspelt value stays unfilled", async () => {
    const packet = routed("set the thermostat to coll at 21 degrees", []);
    await selectStage(packet, { config: defaultConfig });
    assert.equal(routingOf(packet).selectedTool?.params?.["mode"], undefined);
  });

  it("selector - spelling: corrections to words no candidate has, and quoted values, leave the request as written", () => {
    const packet = routed('set the thermostat deploymnet to coll, note "coll runs"', [["coll", "cool"], ["deploymnet", "deployment"]]);
    assert.equal(selectionRequestOf(packet).text, 'set the thermostat deploymnet to cool, note "coll runs"');
  });
});
