import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import { natsServerAvailable, startLocalNats } from "@switchyard/local-nats";
import { decodePacket, encodePacket, newPacket } from "@switchyard/packet";
// The relays are processes started from the built script, as the bench starts them.
import { startHopFloor } from "../dist/perf/hop-floor.js";
import type { FloorKind } from "../dist/perf/hop-relay.js";
import { doneSubject } from "../dist/perf/hop-relay.js";

const skip = natsServerAvailable() ? false : "no nats-server on PATH (apt-get install nats-server)";

/** Runs `kind`'s floor of three hops for a second; returns its figures and the last message each relay chain announced. */
async function throughFloor(kind: FloorKind, payload: Uint8Array) {
  const nats = await startLocalNats();
  const nc = await connect({ servers: nats.url });
  try {
    let last: Uint8Array | undefined;
    nc.subscribe(doneSubject("*"), {
      callback: (_error, m) => {
        last = m.data;
      },
    });
    const floor = await startHopFloor({ natsUrl: nats.url, kind, hops: 3, payload });
    try {
      const figures = await floor.run({ connections: 2, duration: 1 });
      await nc.flush();
      return { figures, last };
    } finally {
      await floor.close();
    }
  } finally {
    await nc.close();
    await nats.stop();
  }
}

describe("packet-e2e's floors", { skip }, () => {
  it("hop floor - the bare relays pass the bytes on as they came", async () => {
    const payload = new Uint8Array(300).fill(7);
    const { figures, last } = await throughFloor("bare", payload);
    assert.ok(figures.completed > 0, `${figures.completed} messages through`);
    assert.equal(figures.failed, 0);
    assert.deepEqual([...last!], [...payload]);
  });

  it("hop floor - the codec relays decode the packet, record their hop and encode it, as a stage does", async () => {
    const packet = newPacket({ message: "read notes/todo.md" });
    const { figures, last } = await throughFloor("codec", encodePacket(packet));
    assert.ok(figures.completed > 0, `${figures.completed} messages through`);
    assert.equal(figures.failed, 0);
    const relayed = decodePacket(last!);
    assert.equal(relayed.header?.packetId, packet.header?.packetId);
    assert.deepEqual(
      relayed.hops.slice(packet.hops.length).map((hop) => [hop.service, hop.hop]),
      [
        ["relay", 1],
        ["relay", 2],
        ["relay", 3],
      ],
    );
    assert.equal(relayed.header?.hop, 3);
  });
});
