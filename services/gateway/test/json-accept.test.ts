import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptJsonAnswers } from "../src/doors/mcp/json-accept.js";

/** A request's headers as Node parses them: `headers` by lower-case name, `rawHeaders` as sent. */
function request(pairs: string[]) {
  const headers: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i += 2) headers[pairs[i]!.toLowerCase()] = pairs[i + 1]!;
  return { headers, rawHeaders: [...pairs] };
}

const BOTH = "application/json, text/event-stream";

describe("gateway mcp accept", () => {
  it("gateway mcp accept - a request that accepts JSON is passed on accepting both, in headers and raw pairs alike", () => {
    for (const accept of ["application/json", "*/*", "application/*;q=0.5", BOTH]) {
      const raw = request(["Host", "localhost", "Accept", accept, "Content-Type", "application/json"]);
      acceptJsonAnswers(raw);
      assert.equal(raw.headers.accept, BOTH, accept);
      assert.deepEqual(raw.rawHeaders, ["Host", "localhost", "Content-Type", "application/json", "Accept", BOTH], accept);
    }
  });

  it("gateway mcp accept - no Accept at all accepts JSON", () => {
    const raw = request(["Host", "localhost"]);
    acceptJsonAnswers(raw);
    assert.deepEqual(raw.rawHeaders, ["Host", "localhost", "Accept", BOTH]);
  });

  it("gateway mcp accept - a request that takes no JSON is left for the SDK's 406", () => {
    for (const accept of ["text/html", "application/json;q=0, text/html"]) {
      const raw = request(["Accept", accept]);
      acceptJsonAnswers(raw);
      assert.equal(raw.headers.accept, accept);
      assert.deepEqual(raw.rawHeaders, ["Accept", accept]);
    }
  });
});
