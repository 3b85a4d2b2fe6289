import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { argumentIssues, validateArguments } from "../src/index.js";

describe("validate arguments - remote $ref", () => {
  it("validate arguments - a schema with a remote $ref is never fetched: validation fails cleanly", async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? "");
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ type: "string" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const schema = {
        type: "object",
        properties: { path: { $ref: `http://127.0.0.1:${port}/x.json` } },
        required: ["path"],
      };
      const result = validateArguments(schema, { path: "notes/todo.md" });
      assert.equal(result.ok, false);
      const [issue] = argumentIssues(schema, { path: "notes/todo.md" });
      assert.equal(issue?.keyword, "$schema");
      assert.match(issue!.message, /the tool's inputSchema cannot be used: can't resolve reference http:\/\/127\.0\.0\.1:\d+\/x\.json/);
      // Long enough for any fetch ajv might have started to arrive.
      await sleep(300);
      assert.deepEqual(requests, [], "no request reached the server");
    } finally {
      server.close();
    }
  });
});
