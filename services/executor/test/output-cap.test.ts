import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { newPacket } from "@switchyard/packet";
import { capToolOutput, truncationMarker } from "../src/output-cap.js";

const packet = () => newPacket({ message: "dump the log" });

describe("tool output cap", () => {
  it("tool output cap - an output within the limit is left as it is, and nothing is logged", () => {
    const p = packet();
    const result = { success: true, output: { lines: ["a", "b"] }, executionTimeMs: 3 };
    assert.equal(capToolOutput(p, "log.dump", result, 1024), result);
    assert.equal(p.reasoning?.reflectionLog.length ?? 0, 0);
  });

  it("tool output cap - a long text is cut to the limit, ends with the marker, and the reflection log says so", () => {
    const p = packet();
    const output = "x".repeat(5000);
    const capped = capToolOutput(p, "log.dump", { success: true, output, executionTimeMs: 3 }, 1000);
    assert.equal(capped.output, "x".repeat(1000) + truncationMarker(5000, 1000));
    assert.match(p.reasoning!.reflectionLog.at(-1)!.summary, /log\.dump: output of 5000 bytes truncated to TOOL_OUTPUT_MAX_BYTES=1000/);
  });

  it("tool output cap - multi-byte text is cut on a character boundary; structured output becomes its cut JSON text", () => {
    const cut = capToolOutput(packet(), "t", { success: true, output: "é".repeat(600), executionTimeMs: 1 }, 301);
    assert.equal(cut.output, "é".repeat(150) + truncationMarker(1200, 301));
    const structured = capToolOutput(packet(), "t", { success: true, output: { rows: Array(500).fill("row") }, executionTimeMs: 1 }, 300);
    assert.equal(typeof structured.output, "string");
    assert.ok(String(structured.output).startsWith('{"rows":["row","row"'));
    assert.match(String(structured.output), /\[truncated by Switchyard: the tool's output was 3010 bytes, the limit is 300\]$/);
  });

  it("tool output cap - a huge error text is cut as well", () => {
    const capped = capToolOutput(packet(), "t", { success: false, output: null, error: "e".repeat(2000), executionTimeMs: 1 }, 500);
    assert.equal(capped.output, null);
    assert.equal(capped.error, "e".repeat(500) + truncationMarker(2000, 500));
  });
});
