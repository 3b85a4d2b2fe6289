import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InjectOptions } from "fastify";
import { buildApp } from "../src/app.js";
import { localAuthenticator } from "../src/shared/auth.js";
import { MAX_JSON_DEPTH, structureProblem, utf8Text } from "../src/shared/bounded-json.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";

const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth: localAuthenticator };

/** Arguments nested `depth` levels of objects deep, the arguments object counted: { a: { a: … } }. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { path: "notes/todo.md" };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

const post = (url: string, payload: string | Buffer): InjectOptions => ({ method: "POST", url, headers: { "content-type": "application/json" }, payload });

describe("gateway bounds - one check of structure and text for every door", () => {
  it("gateway bounds - the limit is 32 levels, below what protobuf's Value decoding takes (100, two per level)", () => {
    assert.equal(MAX_JSON_DEPTH, 32);
    assert.equal(structureProblem({ arguments: nested(32) }), undefined);
    assert.equal(structureProblem(nested(32), "arguments", 1), undefined, "checked on its own, as gRPC does, the same bound");
    for (const depth of [33, 48, 99, 200]) {
      const problem = structureProblem({ arguments: nested(depth) });
      assert.equal(problem?.field, `arguments${"/a".repeat(32)}`, `depth ${depth}`);
      assert.match(problem?.message ?? "", /is nested deeper than 32 levels of objects and arrays/);
    }
    assert.equal(structureProblem({ history: [[[]]] })?.field, undefined, "arrays count as levels too, shallow ones pass");
    assert.match(structureProblem({ a: JSON.parse("[".repeat(40) + "]".repeat(40)) as unknown })?.field ?? "", /^a(\/0)+$/);
  });

  it("gateway bounds - a body nested a hundred thousand levels is refused without overflowing the stack", () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    assert.match(structureProblem(deep)?.message ?? "", /nested deeper than 32/);
  });

  it("gateway bounds - a lone surrogate in a value or a key names its field; a surrogate pair is text", () => {
    assert.equal(structureProblem({ message: "read \ud83d\ude00 notes" }), undefined);
    for (const lone of ["\ud800", "x\udfff", "\ude00\ud83d"]) {
      assert.deepEqual(structureProblem({ message: `read ${lone} notes` })?.field, "message");
    }
    assert.equal(structureProblem({ arguments: { list: ["ok", "\ud800"] } })?.field, "arguments/list/1");
    assert.match(structureProblem({ arguments: { ["k\ud800"]: 1 } })?.message ?? "", /a key in arguments holds a lone surrogate/);
  });

  it("gateway bounds - bytes are read as UTF-8 strictly", () => {
    assert.equal(utf8Text(Buffer.from("read é notes")), "read é notes");
    assert.equal(utf8Text(Buffer.from([0x7b, 0xff, 0x7d])), undefined);
    // A surrogate encoded as UTF-8 bytes (CESU-8) is no UTF-8 either.
    assert.equal(utf8Text(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])), undefined);
  });

  it("gateway bounds - HTTP: deep arguments on /v1/calls are 400 naming the field; 32 levels are accepted", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), LIMITS);
    const ok = await app.inject(post("/v1/calls", JSON.stringify({ tool: "filesystem.read_file", arguments: nested(32) })));
    assert.ok(ok.statusCode < 300, ok.body);
    for (const depth of [33, 48, 99, 200]) {
      const res = await app.inject(post("/v1/calls", JSON.stringify({ tool: "filesystem.read_file", arguments: nested(depth) })));
      assert.equal(res.statusCode, 400, `depth ${depth}: ${res.body}`);
      assert.equal(res.json().field, `arguments${"/a".repeat(32)}`);
      assert.match(res.json().message, /nested deeper than 32 levels/);
    }
  });

  it("gateway bounds - HTTP: a lone surrogate is 400 naming the field and bytes that are not UTF-8 are 400, on /v1/packets and /v1/route", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), LIMITS);
    for (const url of ["/v1/packets", "/v1/route"]) {
      const lone = await app.inject(post(url, '{"message":"read \\ud800 notes/todo.md"}'));
      assert.deepEqual([lone.statusCode, lone.json().field], [400, "message"], lone.body);
      assert.match(lone.json().message, /lone surrogate/);
      const bytes = await app.inject(post(url, Buffer.from([...Buffer.from('{"message":"read '), 0xff, ...Buffer.from('"}')])));
      assert.equal(bytes.statusCode, 400, bytes.body);
      assert.match(bytes.json().message, /not valid UTF-8/);
    }
  });
});
