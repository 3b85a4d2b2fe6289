import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { decodePacketSummary, encodePacket, newPacket, Packet_State, requestApproval } from "@switchyard/packet";
import { WaitingPackets } from "../src/index.js";
import type { StoredPacket } from "../src/index.js";

const NOW = Date.parse("2026-11-28T12:00:00Z");
const MINUTE = 60_000;

/** A stored packet in `state`; an approval asked for at NOW valid for `ttlMs` when given. */
function stored(state: Packet_State, ttlMs?: number): Uint8Array {
  const packet = newPacket({ message: "write notes/todo.md" });
  packet.state = state;
  if (ttlMs !== undefined) requestApproval(packet, ttlMs, NOW);
  return encodePacket(packet);
}

/** The watch's entry for `key`: its bytes (none for a deletion), decoded as the watch decodes them. */
function entry(key: string, bytes: Uint8Array | undefined, storedAt: number): StoredPacket {
  return { key, storedAt, update: true, ...(bytes ? { bytes, summary: decodePacketSummary(bytes) } : {}) };
}

describe("waiting packets - the operators' tally of packets stopped for a person", () => {
  it("waiting packets - counts by state; a packet that moves on or is deleted leaves the count", () => {
    const tally = new WaitingPackets(24 * 60 * MINUTE);
    tally.observe(entry("a", stored(Packet_State.AWAITING_APPROVAL, 10 * MINUTE), NOW));
    tally.observe(entry("b", stored(Packet_State.AWAITING_USER), NOW));
    tally.observe(entry("c", stored(Packet_State.COMPLETED), NOW));
    tally.observe(entry("d", stored(Packet_State.AWAITING_USER), NOW));
    assert.deepEqual(Object.fromEntries(tally.read(NOW).byState), { AWAITING_APPROVAL: 1, AWAITING_USER: 2 });

    tally.observe(entry("a", stored(Packet_State.EXECUTING), NOW + MINUTE));
    tally.observe(entry("d", undefined, NOW + MINUTE));
    assert.deepEqual(Object.fromEntries(tally.read(NOW + MINUTE).byState), { AWAITING_APPROVAL: 0, AWAITING_USER: 1 });
  });

  it("waiting packets - an approval past its time is counted expired once, and still counts as waiting", () => {
    const tally = new WaitingPackets(24 * 60 * MINUTE);
    tally.observe(entry("soon", stored(Packet_State.AWAITING_APPROVAL, 5 * MINUTE), NOW));
    tally.observe(entry("later", stored(Packet_State.AWAITING_APPROVAL, 60 * MINUTE), NOW));
    assert.equal(tally.read(NOW + MINUTE).newlyExpired, 0);
    const after = tally.read(NOW + 6 * MINUTE);
    assert.equal(after.newlyExpired, 1);
    assert.equal(after.byState.get("AWAITING_APPROVAL"), 2, "nothing ends it: it waits until someone answers");
    assert.equal(tally.read(NOW + 7 * MINUTE).newlyExpired, 0, "counted once");
    assert.equal(tally.read(NOW + 61 * MINUTE).newlyExpired, 1);
  });

  it("waiting packets - an entry older than the bucket's retention is forgotten: the bucket dropped it without a delete", () => {
    const tally = new WaitingPackets(60 * MINUTE);
    tally.observe(entry("old", stored(Packet_State.AWAITING_USER), NOW));
    assert.equal(tally.read(NOW + 59 * MINUTE).byState.get("AWAITING_USER"), 1);
    assert.equal(tally.read(NOW + 61 * MINUTE).byState.get("AWAITING_USER"), 0);
  });
});
