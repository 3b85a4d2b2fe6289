import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { addDataField, newPacket, routingOf, SelectedToolSchema, TOOL_RESULT_FIELD, ToolExecutionResultSchema } from "@switchyard/packet";
import { Attr, stageOutcomeAttributes } from "../src/index.js";

describe("stage outcome attributes", () => {
  const content = { maxChars: 64 };
  const executed = (output: string) => {
    const packet = newPacket({ message: "read notes/todo.md" });
    const routing = routingOf(packet);
    routing.selectedTool = create(SelectedToolSchema, { toolName: "fs.read", params: { path: "notes/todo.md" } });
    addDataField(packet, { key: TOOL_RESULT_FIELD, value: { tool: "fs.read", params: {}, success: true, output, error: null }, type: "tool_execution_result", source: "mcp:fs" });
    routing.executionResult = create(ToolExecutionResultSchema, { success: true });
    return packet;
  };

  it("attributes - the step's output is recorded from its data field, the one copy", () => {
    const attributes = stageOutcomeAttributes(executed("- [ ] ship it"), content);
    assert.equal(attributes[Attr.ToolOutput], JSON.stringify("- [ ] ship it"));
    assert.equal(attributes[Attr.Tool], "fs.read");
  });

  it("attributes - no output once the packet moved on to its next step, nor without content recording", () => {
    const packet = executed("- [ ] ship it");
    assert.equal(Attr.ToolOutput in stageOutcomeAttributes(packet), false, "content recording off");
    routingOf(packet).executionResult = undefined; // what intent does at reinjection
    assert.equal(Attr.ToolOutput in stageOutcomeAttributes(packet, content), false, "an earlier step's output is not this step's");
  });
});
