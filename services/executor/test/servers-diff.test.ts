import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseServersConfig } from "../src/servers-config.js";
import type { ServerConfig } from "../src/servers-config.js";
import { diffServers } from "../src/servers-diff.js";

/** Servers as the loader makes them from `yaml` (the file lives in /config). */
function servers(yaml: string): ServerConfig[] {
  return parseServersConfig(yaml, "/config/switchyard.yaml", {}).servers;
}

const names = (list: ServerConfig[]) => list.map((server) => server.name);

const BASE = `
servers:
  files:
    command: mcp-server-filesystem
    args: ["./workspace"]
    env: { A: "1", B: "2" }
    domains: [files]
  remote:
    url: http://localhost:3001/mcp
    headers: { Authorization: Bearer x }
`;

describe("servers diff", () => {
  it("servers diff - the same servers, settings in another order, are no change", () => {
    const reordered = `
servers:
  remote:
    headers: { Authorization: Bearer x }
    url: http://localhost:3001/mcp
  files:
    domains: [files]
    env: { B: "2", A: "1" }
    args: ["./workspace"]
    command: mcp-server-filesystem
`;
    assert.deepEqual(diffServers(servers(BASE), servers(reordered)), { added: [], changed: [], removed: [] });
  });

  it("servers diff - a new server is added, a missing one removed; the others are left alone", () => {
    const next = servers(`
servers:
  files:
    command: mcp-server-filesystem
    args: ["./workspace"]
    env: { A: "1", B: "2" }
    domains: [files]
  everything:
    command: mcp-server-everything
`);
    const diff = diffServers(servers(BASE), next);
    assert.deepEqual(names(diff.added), ["everything"]);
    assert.deepEqual(diff.added[0], next[1], "as the new config has it");
    assert.deepEqual(names(diff.removed), ["remote"]);
    assert.equal(diff.removed[0]?.transport, "http", "as the running config has it");
    assert.deepEqual(diff.changed, []);
  });

  it("servers diff - from nothing everything is added, to nothing everything removed", () => {
    assert.deepEqual(names(diffServers([], servers(BASE)).added), ["files", "remote"]);
    assert.deepEqual(names(diffServers(servers(BASE), []).removed), ["files", "remote"]);
  });

  const FILES = 'command: mcp-server-filesystem\n    args: ["./workspace"]';
  // Each setting of a server, changed alone: [what, the files server before, after].
  const changes: [string, string, string][] = [
    ["command", "command: mcp-server-filesystem", "command: mcp-server-memory"],
    ["args", FILES, 'command: mcp-server-filesystem\n    args: ["./other"]'],
    ["env", `${FILES}\n    env: { A: "1" }`, `${FILES}\n    env: { A: "2" }`],
    ["env added", FILES, `${FILES}\n    env: { A: "1" }`],
    ["cwd", `${FILES}\n    cwd: ./a`, `${FILES}\n    cwd: ./b`],
    ["url", "url: http://localhost:3001/mcp", "url: http://localhost:3002/mcp"],
    ["headers", "url: http://h/mcp\n    headers: { A: x }", "url: http://h/mcp\n    headers: { A: y }"],
    ["command to url", FILES, "url: http://localhost:3001/mcp"],
    ["timeoutMs", FILES, `${FILES}\n    timeoutMs: 5000`],
    ["exclude", `${FILES}\n    exclude: [read_file]`, `${FILES}\n    exclude: [read_file, write_file]`],
    ["core", FILES, `${FILES}\n    core: [list_directory]`],
    ["sideEffects", FILES, `${FILES}\n    sideEffects: { move_file: execute }`],
    ["pool", FILES, `${FILES}\n    pool: admin`],
    ["domains", `${FILES}\n    domains: [files]`, `${FILES}\n    domains: [files, code]`],
    ["tenants", FILES, `${FILES}\n    tenants: [tenant-a]`],
    ["tools", `${FILES}\n    tools: { move_file: { pool: admin } }`, `${FILES}\n    tools: { move_file: { pool: ops } }`],
    ["tools requires_approval", FILES, `${FILES}\n    tools: { edit_file: { requires_approval: true } }`],
  ];
  for (const [setting, before, after] of changes) {
    it(`servers diff - a changed ${setting} changes the server`, () => {
      const other = "\n  memory:\n    command: mcp-server-memory";
      const next = servers(`servers:\n  files:\n    ${after}${other}`);
      const diff = diffServers(servers(`servers:\n  files:\n    ${before}${other}`), next);
      assert.deepEqual(diff, { added: [], changed: [next[0]], removed: [] });
    });
  }
});
