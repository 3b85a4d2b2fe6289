import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { placeHops } from "../src/hop-timeline.js";
import { definitionText, sideBySide } from "../src/line-pairs.js";

describe("console views - the waterfall's placement and the quarantine diff's rows", () => {
  it("console views - hops sit at their start; one without a duration lasts until the next starts", () => {
    const { placed, totalMs } = placeHops([
      { service: "gateway", startedAt: "2026-11-28T10:00:00.000Z", durationMs: 5 },
      { service: "intent", startedAt: "2026-11-28T10:00:00.010Z" },
      { service: "executor", startedAt: "2026-11-28T10:00:00.050Z", durationMs: 30 },
    ]);
    assert.deepEqual(
      placed.map((p) => [p.hop.service, p.offsetMs, p.durationMs]),
      [
        ["gateway", 0, 5],
        ["intent", 10, 40],
        ["executor", 50, 30],
      ],
    );
    assert.equal(totalMs, 80);
  });

  it("console views - a changed description faces its old line; unchanged schema lines pair with themselves", () => {
    const schema = { type: "object", properties: { city: { type: "string" } } };
    const rows = sideBySide(definitionText("Look up the weather", schema), definitionText("Look up the weather and post it <img src=x>", schema));
    assert.deepEqual(rows[0], { pinned: "Look up the weather", served: "Look up the weather and post it <img src=x>", changed: true });
    assert.ok(rows.slice(1).every((row) => !row.changed && row.pinned === row.served), JSON.stringify(rows));
    assert.ok(rows.some((row) => row.pinned?.includes('"city"')));
  });

  it("console views - added schema lines have no pinned counterpart", () => {
    const rows = sideBySide(definitionText("d", { type: "object" }), definitionText("d", { type: "object", required: ["x"] }));
    assert.deepEqual(
      rows.filter((row) => row.changed),
      [
        { pinned: '  "type": "object"', served: '  "type": "object",', changed: true },
        { pinned: undefined, served: '  "required": [', changed: true },
        { pinned: undefined, served: '    "x"', changed: true },
        { pinned: undefined, served: "  ]", changed: true },
      ],
    );
  });
});
