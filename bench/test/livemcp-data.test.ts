import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { readBench } from "@switchyard/bench-data";
import { SERVER_NAME_PATTERN } from "@switchyard/packet";

// The LiveMCPBench and MCP-Zero data (bench/data/README.md, sections livemcp and livemcp-zero).
const dataDir = fileURLToPath(new URL("../data/", import.meta.url));
const script = join(dataDir, "make-mcp-bench-data.py");
/** The sources as ../shared/bench-mcp holds them beside the repository, unless told otherwise. */
const sources = process.env["SWITCHYARD_BENCH_MCP_DIR"] ?? fileURLToPath(new URL("../../../shared/bench-mcp/", import.meta.url));

interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  server: string;
  serverTool: string;
}
interface Query {
  id: string;
  query: string;
  expected: string[];
  category: string;
  alternatives?: Record<string, string[]>;
  unresolved?: string[];
}

function lines<T>(file: string): T[] {
  const text = readFileSync(join(dataDir, file), "utf8");
  assert.ok(text.endsWith("\n"), `${file} ends with a newline`);
  return text.slice(0, -1).split("\n").map((line) => JSON.parse(line) as T);
}

const live = lines<Tool>("livemcp.tools.jsonl");
const zero = lines<Tool>("livemcp-zero.tools.jsonl");
const queries = lines<Query>("livemcp.queries.jsonl");

function python(): string | undefined {
  try {
    execFileSync("python3", ["--version"]);
    return "python3";
  } catch {
    return undefined;
  }
}

describe("livemcp data", () => {
  it("livemcp data - 527 tools of 70 servers and 95 tasks; livemcp-zero adds MCP-Zero's to 3,265 tools of 367 servers", () => {
    assert.equal(live.length, 527);
    assert.equal(new Set(live.map((t) => t.server)).size, 70);
    assert.equal(queries.length, 95);
    assert.equal(zero.length, 3265);
    assert.equal(new Set(zero.map((t) => t.server)).size, 367);
    const inZero = new Map(zero.map((t) => [t.name, JSON.stringify(t)]));
    for (const t of live) assert.equal(inZero.get(t.name), JSON.stringify(t), `${t.name} is in livemcp-zero unchanged`);
  });

  it("livemcp data - every tool is <server>.<its own name>, the server a valid server name, names unique and sorted", () => {
    for (const tools of [live, zero]) {
      const names = tools.map((t) => t.name);
      assert.equal(new Set(names).size, names.length);
      assert.deepEqual(names, [...names].sort((a, b) => (a < b ? -1 : 1)));
      for (const t of tools) {
        assert.deepEqual(Object.keys(t), ["name", "description", "inputSchema", "server", "serverTool"]);
        assert.match(t.server, SERVER_NAME_PATTERN, t.name);
        assert.ok(t.name.startsWith(`${t.server}.`) && t.name.length > t.server.length + 1, t.name);
        assert.equal(t.inputSchema["type"], "object", t.name);
      }
    }
  });

  it("livemcp data - every gold tool resolves to a catalog tool or is listed as unresolved", () => {
    const byName = new Map(live.map((t) => [t.name, t]));
    const ownNames = new Set(live.map((t) => t.serverTool));
    for (const q of queries) {
      assert.match(q.id, /^livemcp-[0-9a-f-]{36}$/);
      assert.ok(q.query.trim().length > 0 && q.category.length > 0, q.id);
      assert.ok(q.expected.length > 0, `${q.id} expects a tool`);
      for (const name of q.expected) assert.ok(byName.has(name), `${q.id}: ${name} is a tool`);
      for (const [name, others] of Object.entries(q.alternatives ?? {})) {
        assert.ok(q.expected.includes(name), `${q.id}: alternatives of ${name} stand for an expected tool`);
        for (const other of others) assert.equal(byName.get(other)?.serverTool, byName.get(name)!.serverTool, `${q.id}: ${other} is ${name} on another server`);
      }
      for (const name of q.unresolved ?? []) assert.ok(!ownNames.has(name), `${q.id}: unresolved ${name} is no tool's name`);
    }
    const count = (f: (q: Query) => number) => queries.reduce((n, q) => n + f(q), 0);
    // bench/data/README.md, livemcp: 256 annotated names, 254 resolved, 2 unresolved, 23 tasks with alternatives
    assert.equal(count((q) => q.expected.length), 254);
    assert.deepEqual(queries.flatMap((q) => q.unresolved ?? []).sort(), ["execute_command", "open_document"]);
    assert.equal(count((q) => (q.alternatives ? 1 : 0)), 23);
  });

  it("livemcp data - the reader gives each tool its server, and livemcp-zero asks livemcp's tasks", () => {
    const zeroSet = readBench("livemcp-zero");
    const liveSet = readBench("livemcp");
    assert.deepEqual(zeroSet.cases, liveSet.cases);
    const tool = liveSet.tools.find((t) => t.name === "filesystem.write_file")!;
    assert.equal(tool.server, "filesystem");
    assert.equal(tool.serverToolName, "write_file");
  });

  const py = python();
  const skip = !existsSync(join(sources, "livemcpbench", "tools.json"))
    ? `no LiveMCPBench sources in ${sources} (set SWITCHYARD_BENCH_MCP_DIR)`
    : py === undefined
      ? "no python3"
      : false;
  it("livemcp data - make-mcp-bench-data.py rebuilds the three files to their SHA256SUMS and counts the gold tools", { skip }, () => {
    const out = mkdtempSync(join(tmpdir(), "livemcp-"));
    try {
      const stdout = execFileSync(py!, [script, "--livemcpbench", join(sources, "livemcpbench"), "--mcp-zero", join(sources, "mcp-zero"), "--out", out], { encoding: "utf8" });
      assert.match(stdout, /^livemcp: tools: 527, servers: 70, tasks: 95, gold: 256, .*gold_unresolved: 2/m);
      assert.match(stdout, /^livemcp-zero: tools: 3265, servers: 367, /m);
      assert.match(stdout, /all files match SHA256SUMS/);
      for (const file of ["livemcp.tools.jsonl", "livemcp.queries.jsonl", "livemcp-zero.tools.jsonl"]) {
        assert.ok(readFileSync(join(out, file)).equals(readFileSync(join(dataDir, file))), `${file} as committed`);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
