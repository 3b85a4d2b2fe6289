import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { encodeRouteResponse, RouteResponseReader, RouteResponseSchema, RoutingCandidate_Source, ToolDefinition_SideEffect, ToolDefinitionSchema } from "../src/index.js";

const readFile = create(ToolDefinitionSchema, {
  name: "fs.read_text_file",
  description: "Read a file as text",
  inputSchema: { type: "object", properties: { path: { type: "string" }, head: { type: "number" } }, required: ["path"] },
  server: "fs",
  serverToolName: "read_text_file",
  examples: ["show me notes/todo.md"],
  domains: ["files"],
  pinHash: "ab".repeat(32),
  annotations: { title: "Read", readOnlyHint: true },
});
const writeFile = create(ToolDefinitionSchema, { name: "fs.write_file", description: "Write a file", sideEffect: ToolDefinition_SideEffect.WRITE, core: true, tenants: ["acme"] });

function answer(...tools: (typeof readFile)[]) {
  return create(RouteResponseSchema, {
    candidates: tools.map((tool, i) => ({
      tool,
      score: 0.9 - i / 10,
      source: tool.core ? RoutingCandidate_Source.CORE : RoutingCandidate_Source.SEMANTIC,
      ...(i === 0 ? { exampleId: "0123456789abcdef", example: "show me notes/todo.md", matchedWords: ["show", "todo"] } : {}),
    })),
    warnings: ["the embedder failed; routed by keywords"],
    need: { needed: true, probability: 0.8, threshold: 0.15, reason: "tool needed: tool-need probability 0.80 ≥ 0.15" },
  });
}

describe("route answers on the wire", () => {
  it("encodes byte for byte as RouteResponse does, every field of a tool, a candidate's explanation and the verdict included", () => {
    const response = answer(readFile, writeFile);
    assert.deepEqual(encodeRouteResponse(response), toBinary(RouteResponseSchema, response));
    // Encoded a second time from its cache, the same bytes.
    assert.deepEqual(encodeRouteResponse(response), toBinary(RouteResponseSchema, response));
  });

  it("encodes a changed tool as changed: a change is a new definition, cached apart", () => {
    assert.deepEqual(encodeRouteResponse(answer(readFile)), toBinary(RouteResponseSchema, answer(readFile)));
    const changed = create(ToolDefinitionSchema, { ...readFile, description: "Read a file as UTF-8 text" });
    const decoded = fromBinary(RouteResponseSchema, encodeRouteResponse(answer(changed)));
    assert.equal(decoded.candidates[0]?.tool?.description, "Read a file as UTF-8 text");
  });

  it("reads what RouteResponse encodes, candidates without a tool and empty answers too", () => {
    const reader = new RouteResponseReader();
    const response = answer(readFile, writeFile);
    assert.ok(equals(RouteResponseSchema, reader.read(toBinary(RouteResponseSchema, response)), response));
    const toolless = create(RouteResponseSchema, { candidates: [{ score: 0.5, source: RoutingCandidate_Source.PINNED }] });
    const read = reader.read(toBinary(RouteResponseSchema, toolless));
    assert.equal(read.candidates[0]?.tool, undefined);
    assert.ok(equals(RouteResponseSchema, read, toolless));
    assert.ok(equals(RouteResponseSchema, reader.read(new Uint8Array(0)), create(RouteResponseSchema)));
  });

  it("decodes each distinct definition once and a changed one anew", () => {
    const reader = new RouteResponseReader();
    const first = reader.read(encodeRouteResponse(answer(readFile, writeFile)));
    const second = reader.read(encodeRouteResponse(answer(writeFile, readFile)));
    assert.equal(second.candidates[1]?.tool, first.candidates[0]?.tool);
    assert.equal(second.candidates[0]?.tool, first.candidates[1]?.tool);
    const changed = reader.read(encodeRouteResponse(answer(create(ToolDefinitionSchema, { ...readFile, flags: ["definition changed since it was pinned"] }))));
    assert.notEqual(changed.candidates[0]?.tool, first.candidates[0]?.tool);
    assert.deepEqual(changed.candidates[0]?.tool?.flags, ["definition changed since it was pinned"]);
  });

  it("keeps at most `keep` definitions, the oldest leaving first", () => {
    const reader = new RouteResponseReader(2);
    const tool = (name: string) => create(ToolDefinitionSchema, { name });
    const a = reader.read(encodeRouteResponse(answer(tool("a")))).candidates[0]?.tool;
    const b = reader.read(encodeRouteResponse(answer(tool("b")))).candidates[0]?.tool;
    reader.read(encodeRouteResponse(answer(tool("c"))));
    assert.equal(reader.read(encodeRouteResponse(answer(tool("b")))).candidates[0]?.tool, b);
    const again = reader.read(encodeRouteResponse(answer(tool("a")))).candidates[0]?.tool;
    assert.notEqual(again, a);
    assert.ok(a && again && equals(ToolDefinitionSchema, again, a));
  });
});
