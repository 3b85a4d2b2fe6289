import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpPool } from "../src/mcp-pool.js";
import { loadServersConfig } from "../src/servers-config.js";
import type { ServerConfig } from "../src/servers-config.js";
import { reloadServers } from "../src/servers-reload.js";
import type { ReloadDeps } from "../src/servers-reload.js";

const MEMORY = "servers:\n  memory:\n    command: mcp-server-memory\n    env: { MEMORY_FILE_PATH: ./memory.jsonl }\n";
const EVERYTHING = "  everything:\n    command: mcp-server-everything\n";

describe("servers reload", () => {
  let dir = "";
  let file = "";
  let pool: McpPool;
  const lines: { level: string; message: string }[] = [];
  const served: string[][] = [];
  const published: string[][] = [];
  let deps: ReloadDeps;
  let registered: ServerConfig[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-reload-"));
    file = join(dir, "switchyard.yaml");
    await writeFile(file, MEMORY);
    pool = await McpPool.connect((await loadServersConfig(file, {})).servers);
    deps = {
      file,
      env: {},
      registered: () => registered,
      pool,
      serveApprovals: async (servers) => void served.push(servers),
      publish: async (removed) => void published.push(removed),
      logger: {
        info: (_fields: object, message: string) => void lines.push({ level: "info", message }),
        error: (_fields: object, message: string) => void lines.push({ level: "error", message }),
      } as ReloadDeps["logger"],
    };
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const take = () => lines.splice(0);

  it("servers reload - an added server: one info line with its tools; approvals and the catalog follow", async () => {
    await writeFile(file, MEMORY + EVERYTHING);
    await reloadServers(deps);
    const tools = pool.listTools().filter((tool) => tool.server === "everything").length;
    assert.ok(tools > 0);
    assert.deepEqual(take(), [{ level: "info", message: `MCP server added: everything (${tools} tools)` }]);
    assert.deepEqual(served.splice(0), [["memory", "everything"]]);
    assert.deepEqual(published.splice(0), [[]]);

    await reloadServers(deps);
    assert.deepEqual([take(), served, published], [[], [], []], "the same file again does nothing");
  });

  it("servers reload - a config that cannot be used is one error line naming the file and the problem; nothing changes", async () => {
    const cases: [string, RegExp][] = [
      [`${MEMORY}  broken: [`, /YAML|flow|collection|Unexpected/i],
      [`${MEMORY}  bad:\n    command: x\n    colour: red\n`, /servers\.bad\.colour: is not a known setting/],
      [`${MEMORY}  secret:\n    url: \${SECRET_URL}\n`, /servers\.secret\.url: \$\{SECRET_URL\} is not set/],
    ];
    for (const [text, problem] of cases) {
      await writeFile(file, text);
      await reloadServers(deps);
      const logged = take();
      assert.equal(logged.length, 1, JSON.stringify(logged));
      assert.equal(logged[0]?.level, "error");
      assert.ok(logged[0]?.message.startsWith(`cannot apply ${file}: `), logged[0]?.message);
      assert.match(logged[0]?.message ?? "", problem);
      assert.doesNotMatch(logged[0]?.message ?? "", /\n/, "one line");
      assert.match(logged[0]?.message ?? "", /the MCP servers keep running as they were$/);
    }
    assert.deepEqual(pool.servers().map((server) => server.name), ["memory", "everything"]);
    assert.deepEqual([served, published], [[], []]);
  });

  it("servers reload - a changed and a removed server: one info line each; the removed one's tools are retired", async () => {
    await writeFile(file, `${MEMORY}    core: [search_nodes]\n`);
    await reloadServers(deps);
    const tools = pool.listTools().length;
    assert.deepEqual(take(), [
      { level: "info", message: `MCP server changed: memory (${tools} tools)` },
      { level: "info", message: "MCP server removed: everything" },
    ]);
    assert.deepEqual(served.splice(0), [["memory"]]);
    assert.deepEqual(published.splice(0), [["everything"]]);
  });

  it("servers reload - registered servers run beside the file's; the file keeps a name both hold", async () => {
    const everything = (await loadServersConfig(file, {})).servers[0]!;
    const extra: ServerConfig = { transport: "stdio", command: "mcp-server-everything", args: [], env: {}, name: "extra", exclude: [], core: [], pool: "extra", domains: [], tools: {}, tenants: [], trust: "review" };
    registered = [extra, { ...everything, name: "memory" }];
    await reloadServers(deps);
    const tools = pool.listTools().filter((tool) => tool.server === "extra").length;
    assert.ok(tools > 0);
    assert.deepEqual(take(), [
      { level: "error", message: `registered MCP server memory left out: ${file} has a server of that name` },
      { level: "info", message: `MCP server added: extra (${tools} tools)` },
    ]);
    assert.equal(pool.servers().find((server) => server.name === "extra")?.trust, "review");
    registered = [];
    await reloadServers(deps);
    assert.deepEqual(take(), [{ level: "info", message: "MCP server removed: extra" }]);
    served.splice(0);
    published.splice(0);
  });

  it("servers reload - a server that cannot start is an error line; the others apply", async () => {
    await writeFile(file, `${MEMORY}    core: [search_nodes]\n  ghost:\n    command: no-such-mcp-server-anywhere\n`);
    await reloadServers(deps);
    const [line, ...more] = take();
    assert.deepEqual(more, []);
    assert.equal(line?.level, "error");
    assert.match(line?.message ?? "", /^MCP server ghost not added: .*ENOENT.*save .*switchyard\.yaml again to retry/);
  });
});
