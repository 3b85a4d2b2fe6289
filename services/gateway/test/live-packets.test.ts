import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { decodePacketSummary, encodePacket, finish, newPacket, Packet_State } from "@switchyard/packet";
import { GatewayError } from "../src/shared/deps.js";
import { LivePackets } from "../src/fleet/live-packets.js";

function packetOf(tenant: string, state: Packet_State) {
  const packet = newPacket({ message: "hi" });
  packet.header!.tenant = tenant;
  packet.state = state;
  return packet;
}

describe("gateway live packets", () => {
  it("gateway live packets - a tenant at its limit is refused with 'limited'; another tenant is not", () => {
    const live = new LivePackets(2);
    live.admit("a", "p1");
    live.admit("a", "p2");
    assert.throws(
      () => live.admit("a", "p3"),
      (error: unknown) => error instanceof GatewayError && error.code === "limited" && /MAX_CONCURRENT_PACKETS 2/.test(error.message),
    );
    live.admit("b", "p4");
    assert.equal(live.count("a"), 2);
    assert.equal(live.count("b"), 1);
  });

  it("gateway live packets - a packet stored finished or waiting on a person frees its place", () => {
    const live = new LivePackets(1);
    for (const state of [Packet_State.COMPLETED, Packet_State.FAILED, Packet_State.AWAITING_APPROVAL, Packet_State.AWAITING_USER]) {
      const packet = packetOf("a", Packet_State.DETECTING_INTENT);
      live.admit("a", packet.header!.packetId);
      live.observe(packet);
      assert.equal(live.count("a"), 1, "still in flight");
      finish(packet, state, "at rest");
      live.observe(packet);
      assert.equal(live.count("a"), 0, `${Packet_State[state]} is at rest`);
    }
  });

  it("gateway live packets - packets stored by other gateways count too; an approved packet counts again", () => {
    const live = new LivePackets(3);
    const packet = packetOf("a", Packet_State.DETECTING_INTENT);
    live.observe(packet);
    assert.equal(live.count("a"), 1);
    live.observe(finish(packet, Packet_State.AWAITING_APPROVAL, "Approve fs.write_file?"));
    assert.equal(live.count("a"), 0);
    packet.state = Packet_State.EXECUTING;
    live.observe(packet);
    assert.equal(live.count("a"), 1);
  });

  it("gateway live packets - a stored packet read as its summary has its header and state, nothing else", () => {
    const packet = packetOf("a", Packet_State.ROUTING);
    const summary = decodePacketSummary(encodePacket(packet));
    assert.equal(summary.state, Packet_State.ROUTING);
    assert.equal(summary.header?.packetId, packet.header?.packetId);
    assert.equal(summary.header?.tenant, "a");
    assert.deepEqual(Object.keys(summary).sort(), ["$typeName", "header", "state"]);
  });

  it("gateway live packets - a packet that was not accepted is released; 0 means unlimited, and nothing is held", () => {
    const live = new LivePackets(1);
    live.admit("a", "p1");
    live.release("a", "p1");
    live.admit("a", "p2");
    const unlimited = new LivePackets(0);
    for (let i = 0; i < 100; i++) unlimited.admit("a", `p${i}`);
    // unlimited, the bucket is not watched, so no packet's end would ever release it: a gateway kept every id it sent
    assert.equal(unlimited.count("a"), 0);
  });
});
