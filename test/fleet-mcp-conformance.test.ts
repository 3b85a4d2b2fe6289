import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const run = promisify(execFile);
/** @modelcontextprotocol/conformance 0.1.13: the last release that runs on Node 20 (later ones need fs.globSync). */
const CONFORMANCE = fileURLToPath(new URL("node_modules/.bin/conformance", import.meta.url));
/**
 * The server scenarios that apply to a tools-only, stateless server. The others call the
 * suite's own test tools (test_simple_text, test_error_handling…), or need resources, prompts,
 * completions or a session's SSE streams, which /mcp does not offer.
 */
const SCENARIOS = ["server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"];

describe("fleet mcp conformance - @modelcontextprotocol/conformance against /mcp", { skip }, () => {
  let t: TestFleet;
  before(async () => {
    t = await startTestFleet();
  });
  after(async () => {
    await t?.close();
  });

  it("fleet mcp conformance - every applicable server scenario passes", async (ctx) => {
    const results: string[] = [];
    for (const scenario of SCENARIOS) {
      const { stdout } = await run(CONFORMANCE, ["server", "--url", `${t.url}/mcp`, "--scenario", scenario], { timeout: 60_000 }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
      );
      const passed = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
      results.push(`${scenario}: ${passed ? `${passed[1]}/${passed[2]}` : "no result"}`);
      assert.ok(passed && passed[3] === "0" && passed[1] === passed[2], `${scenario}:\n${stdout}`);
    }
    ctx.diagnostic(results.join("; "));
  });
});
