import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { newPacket, RoutingCandidate_Source } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { catalogStats, EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import { catalogTool as tool } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import { routeCandidates, routeStage } from "../src/route.js";
import type { RouteStageDeps } from "../src/route.js";

/** A few everyday agent tools, of the kinds issue 37's catalog had (devops, messaging, smart home, calendar). */
const TOOLS = [
  tool({ name: "restart_deployment", description: "Restart a Kubernetes deployment of a service, such as payment-api or checkout.", inputSchema: { type: "object", properties: { deployment: { type: "string" } }, required: ["deployment"] } }),
  tool({ name: "scale_deployment", description: "Scale a Kubernetes deployment to a number of replicas.", inputSchema: { type: "object", properties: { deployment: { type: "string" }, replicas: { type: "integer" } } } }),
  tool({ name: "send_slack_message", description: "Send a message to a Slack channel.", inputSchema: { type: "object", properties: { channel: { type: "string" }, text: { type: "string" } }, required: ["channel", "text"] } }),
  tool({ name: "control_light", description: "Turn a light on or off in a room of the house.", inputSchema: { type: "object", properties: { target: { type: "string", description: "the room" }, state: { type: "string", enum: ["on", "off"] } } } }),
  tool({ name: "set_thermostat", description: "Set the thermostat's mode and temperature.", inputSchema: { type: "object", properties: { mode: { type: "string", enum: ["heat", "cool", "auto"] }, temperature: { type: "number" } } } }),
  tool({ name: "list_calendar_events", description: "List the events in the user's calendar for a day." }),
  tool({ name: "search_jira_tickets", description: "Search Jira tickets by free text." }),
];

describe("route - spelling", () => {
  const index = new EmbeddedIndex(new LocalEmbedder());
  const config = defaultConfig();
  const deps = (correct: boolean): RouteStageDeps => ({
    route: async (req) => ({ candidates: await routeCandidates(index, [], req, config), warnings: [] }),
    catalogStats: () => catalogStats(TOOLS),
    englishOnly: true,
    ...(correct ? { correctSpelling: (text: string) => index.correctSpelling(text) } : {}),
  });
  const routed = async (message: string, correct = true): Promise<Packet> => {
    const packet = newPacket({ message });
    await routeStage(packet, deps(correct));
    return packet;
  };
  const best = (packet: Packet) => packet.toolRouting?.candidates.find((c) => c.source === RoutingCandidate_Source.SEMANTIC);

  before(async () => {
    await index.upsert(TOOLS);
  });

  it("route - spelling: the issue's misspelt requests reach their tools, the corrections on the packet and in its step log", async () => {
    const restart = await routed("restrat the paymnet-api deploymnet");
    assert.equal(best(restart)?.tool?.name, "restart_deployment");
    assert.deepEqual(
      restart.toolRouting?.spelling.map((c) => [c.written, c.read]),
      [["restrat", "restart"], ["paymnet", "payment"], ["deploymnet", "deployment"]],
    );
    const entry = restart.reasoning?.reflectionLog.find((e) => e.step === "route");
    assert.match(entry?.summary ?? "", /read "restrat" as "restart", "paymnet" as "payment", "deploymnet" as "deployment"/);

    const slack = await routed("sned slak msg to #random: pizza in the kitchen");
    assert.equal(best(slack)?.tool?.name, "send_slack_message");
    assert.deepEqual(slack.toolRouting?.spelling.map((c) => c.read), ["send", "slack"]);
  });

  it("route - spelling: searched as written, the same requests score lower or miss their tool", async () => {
    for (const message of ["restrat the paymnet-api deploymnet", "sned slak msg to #random: pizza in the kitchen"]) {
      const corrected = best(await routed(message));
      const written = best(await routed(message, false));
      assert.ok(written?.tool?.name !== corrected?.tool?.name || (written?.score ?? 0) < (corrected?.score ?? 0), message);
    }
  });

  it("route - spelling: a request spelt right is searched as written, with no correction on the packet", async () => {
    const packet = await routed("restart the checkout deployment and send a slack message");
    assert.deepEqual(packet.toolRouting?.spelling, []);
    assert.doesNotMatch(packet.reasoning?.reflectionLog.find((e) => e.step === "route")?.summary ?? "", / as "/);
  });
});
