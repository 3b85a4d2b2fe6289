import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KV } from "@nats-io/kv";
import { openBucket } from "@switchyard/bus";
import { suiteNats } from "@switchyard/test-fixtures";
import { readTool, syncCatalog } from "../src/catalog-sync.js";
import { McpPool } from "../src/mcp-pool.js";
import { loadServersConfig } from "../src/servers-config.js";
import { pinHashOf } from "../src/tool-pin.js";
import { toolGuard } from "../src/tool-guard.js";

// Built by `pnpm build` (packages/test-fixtures); a real MCP server over stdio.
const HOSTILE_SERVER = fileURLToPath(new URL("../../../packages/test-fixtures/dist/hostile-mcp-server.js", import.meta.url));

describe("tool guard - tenants", () => {
  const nats = suiteNats();
  let dir = "";
  let pool: McpPool;
  let catalog: KV;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-guard-tenants-"));
    await writeFile(join(dir, "description.txt"), "Look up the weather forecast for a city");
    await writeFile(
      join(dir, "switchyard.yaml"),
      `servers:\n  private:\n    command: ${process.execPath}\n    args: [${JSON.stringify(HOSTILE_SERVER)}]\n    tenants: [tenant-a]\n` +
        `    env: { HOSTILE_DESCRIPTION_FILE: ./description.txt, HOSTILE_CALLS_FILE: ./calls.log }\n`,
    );
    pool = await McpPool.connect((await loadServersConfig(join(dir, "switchyard.yaml"), {})).servers);
    catalog = await openBucket(nats.nc, "guard-tenants-catalog");
    await syncCatalog(catalog, ["private"], pool.listTools());
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("catalog sync - a server's tenants are written into each of its tools, outside the pin", async () => {
    const entry = await readTool(catalog, "private.dump_log");
    assert.deepEqual(entry?.tenants, ["tenant-a"]);
    assert.equal(entry?.quarantined, false);
    assert.equal(entry?.pinHash, pinHashOf(entry!));
  });

  it("tool guard - a tool of another tenant's server is refused, its own tenant passes", async () => {
    const vet = toolGuard(catalog, () => pool.listTools());
    assert.equal(await vet("private.dump_log", { bytes: 10 }, "tenant-a"), undefined);
    assert.equal(await vet("private.dump_log", { bytes: 10 }, "tenant-b"), "private.dump_log is not a tool of tenant tenant-b; not executed");
    assert.match((await vet("private.dump_log", { bytes: 10 }, "")) ?? "", /not a tool of tenant/, "a packet without a tenant gets no tenant's tools");
  });
});
