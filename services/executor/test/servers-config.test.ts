import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadServersConfig, ServersConfigError } from "../src/servers-config.js";
import type { StdioServerConfig } from "../src/servers-config.js";

const REPO_CONFIG = fileURLToPath(new URL("../../../switchyard.yaml", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");

describe("servers config", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-config-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function load(yaml: string, env: Record<string, string | undefined> = {}) {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, yaml);
    return loadServersConfig(file, env);
  }

  async function problemsOf(yaml: string, env: Record<string, string | undefined> = {}): Promise<string[]> {
    try {
      await load(yaml, env);
    } catch (error) {
      assert.ok(error instanceof ServersConfigError, `expected a ServersConfigError, got ${String(error)}`);
      return error.problems;
    }
    assert.fail("the config loaded, but should not have");
  }

  it("servers config - interpolates ${VAR} and ${VAR:-default} from the given env only", async () => {
    // Set in process.env but not in the env given to the loader: it must not leak in.
    process.env["SWITCHYARD_TEST_FROM_PROCESS"] = "from-process";
    let config;
    try {
      config = await load(
        [
          "servers:",
          "  fs:",
          "    command: ${CMD}",
          "    args:",
          '      - "${UNSET:-fallback}"',
          '      - "${EMPTY:-for-empty}"',
          '      - "${SET:-unused}/x"',
          '      - "cost: $$5"',
          '      - "${SWITCHYARD_TEST_FROM_PROCESS:-not-from-process}"',
          '    env: { TOKEN: "${SET}" }',
        ].join("\n"),
        { CMD: "my-server", EMPTY: "", SET: "value" },
      );
    } finally {
      delete process.env["SWITCHYARD_TEST_FROM_PROCESS"];
    }
    const fs = config.servers[0] as StdioServerConfig;
    assert.equal(fs.command, "my-server");
    assert.deepEqual(fs.args, ["fallback", "for-empty", "value/x", "cost: $5", "not-from-process"]);
    assert.deepEqual(fs.env, { TOKEN: "value" });
  });

  it("servers config - relative paths are relative to the file's folder", async () => {
    const config = await load(
      [
        "servers:",
        "  fs:",
        "    command: ./bin/server",
        '    args: ["./data", "../shared", "--flag", "plain/word", "${WS:-./ws}"]',
        "    cwd: work",
        "    env: { MEMORY_FILE_PATH: ./state/memory.jsonl, MODE: fast }",
        "  bare:",
        "    command: mcp-server-memory",
        "    cwd: /abs/olute",
      ].join("\n"),
    );
    const [fs, bare] = config.servers as StdioServerConfig[];
    assert.equal(fs?.command, join(dir, "bin/server"));
    assert.deepEqual(fs?.args, [join(dir, "data"), join(dir, "../shared"), "--flag", "plain/word", join(dir, "ws")]);
    assert.equal(fs?.cwd, join(dir, "work"));
    assert.deepEqual(fs?.env, { MEMORY_FILE_PATH: join(dir, "state/memory.jsonl"), MODE: "fast" });
    assert.equal(bare?.command, "mcp-server-memory", "a bare command is left for the PATH lookup");
    assert.equal(bare?.cwd, "/abs/olute");
  });

  it("servers config - reads tool settings and url servers", async () => {
    const config = await load(
      [
        "servers:",
        "  fs:",
        "    command: x",
        "    timeoutMs: 5000",
        "    exclude: [read_file]",
        "    core: [list_directory]",
        "    sideEffects: { move_file: execute, edit_file: write }",
        "    pool: files",
        "    domains: [files, docs]",
        "    tenants: [tenant-a, team.b]",
        "    tools:",
        "      move_file: { pool: admin }",
        "      read_text_file: { domains: [docs], requires_approval: true }",
        "      edit_file: { side_effect: write, requires_approval: true }",
        "      list_directory: { side_effect: read, requires_approval: false }",
        "      write_file: { requires_approval: false }",
        "  remote:",
        "    url: http://localhost:3001/mcp",
        '    headers: { Authorization: "Bearer ${TOKEN}" }',
        "    trust: review",
      ].join("\n"),
      { TOKEN: "t0k" },
    );
    assert.deepEqual(config.servers, [
      {
        name: "fs",
        transport: "stdio",
        command: "x",
        args: [],
        env: {},
        timeoutMs: 5000,
        exclude: ["read_file"],
        core: ["list_directory"],
        pool: "files",
        domains: ["files", "docs"],
        tenants: ["tenant-a", "team.b"],
        trust: "first-use",
        // sideEffects is folded into tools; side_effect and requires_approval come through as written when they agree.
        tools: {
          move_file: { pool: "admin", sideEffect: "execute" },
          edit_file: { sideEffect: "write", requiresApproval: true },
          read_text_file: { domains: ["docs"], requiresApproval: true },
          list_directory: { sideEffect: "read", requiresApproval: false },
          write_file: { requiresApproval: false },
        },
      },
      {
        name: "remote",
        transport: "http",
        url: "http://localhost:3001/mcp",
        headers: { Authorization: "Bearer t0k" },
        exclude: [],
        core: [],
        pool: "remote",
        domains: [],
        tools: {},
        tenants: [],
        trust: "review",
      },
    ]);
  });

  const errorCases: { name: string; yaml: string; env?: Record<string, string>; expected: RegExp[] }[] = [
    {
      name: "a wrong type",
      yaml: "servers:\n  filesystem:\n    command: 42\n",
      expected: [/^servers\.filesystem\.command: must be string$/],
    },
    {
      name: "a wrong item type and an unknown key",
      yaml: "servers:\n  fs:\n    command: x\n    args: [ok, 7]\n    comand: y\n",
      expected: [/^servers\.fs\.args\[1\]: must be string$/, /^servers\.fs\.comand: is not a known setting$/],
    },
    {
      name: "a bad side effect",
      yaml: "servers:\n  fs:\n    command: x\n    sideEffects: { write_file: dangerous }\n",
      expected: [/^servers\.fs\.sideEffects\.write_file: must be one of read, write, execute$/],
    },
    {
      name: "a bad per-tool side_effect and a requires_approval that is not a boolean",
      yaml: "servers:\n  fs:\n    command: x\n    tools: { a: { side_effect: destructive }, b: { requires_approval: 'yes' } }\n",
      expected: [/^servers\.fs\.tools\.a\.side_effect: must be one of read, write, execute$/, /^servers\.fs\.tools\.b\.requires_approval: must be boolean$/],
    },
    {
      name: "side_effect disagreeing with sideEffects",
      yaml: "servers:\n  fs:\n    command: x\n    sideEffects: { move_file: execute }\n    tools: { move_file: { side_effect: write } }\n",
      expected: [/^servers\.fs\.tools\.move_file\.side_effect: write disagrees with servers\.fs\.sideEffects\.move_file: execute; keep one$/],
    },
    {
      name: "side_effect read with requires_approval true, and write with false",
      yaml: [
        "servers:",
        "  fs:",
        "    command: x",
        "    tools:",
        "      a: { side_effect: read, requires_approval: true }",
        "      b: { side_effect: write, requires_approval: false }",
        "      c: { side_effect: execute, requires_approval: false }",
      ].join("\n"),
      expected: [
        /^servers\.fs\.tools\.a\.requires_approval: true contradicts side_effect: read$/,
        /^servers\.fs\.tools\.b\.requires_approval: false contradicts side_effect: write$/,
        /^servers\.fs\.tools\.c\.requires_approval: false contradicts side_effect: execute$/,
      ],
    },
    {
      name: "requires_approval contradicting sideEffects, on a dotted tool name",
      yaml: "servers:\n  fs:\n    command: x\n    sideEffects: { fs.read: read }\n    tools: { fs.read: { requires_approval: true } }\n",
      expected: [/^servers\.fs\.tools\["fs\.read"\]\.requires_approval: true contradicts servers\.fs\.sideEffects\["fs\.read"\]: read$/],
    },
    {
      name: "an unset variable without a default",
      yaml: 'servers:\n  fs:\n    command: x\n    args: ["${WORKSPACE}"]\n',
      expected: [/^servers\.fs\.args\[0\]: \$\{WORKSPACE\} is not set/],
    },
    {
      name: "a malformed reference",
      yaml: 'servers:\n  fs:\n    command: "${not valid}"\n',
      expected: [/^servers\.fs\.command: \$\{not valid\} is not a valid reference/],
    },
    {
      name: "neither command nor url",
      yaml: "servers:\n  fs:\n    args: [x]\n",
      expected: [/^servers\.fs: needs either command .* or url/],
    },
    {
      name: "both command and url, and stdio settings on a url server",
      yaml: "servers:\n  a: { command: x, url: 'http://h/mcp' }\n  b: { url: 'http://h/mcp', cwd: /tmp }\n",
      expected: [/^servers\.a: needs either command/, /^servers\.b\.cwd: only for command servers/],
    },
    {
      name: "a url that is not http",
      yaml: "servers:\n  r: { url: 'ftp://h/mcp' }\n",
      expected: [/^servers\.r\.url: must be an http\(s\) URL/],
    },
    {
      name: "a dotted server name",
      yaml: "servers:\n  my.server: { command: x }\n",
      expected: [/^servers\["my\.server"\]: a server name may hold only/],
    },
    {
      name: "an empty pool, a repeated domain and an unknown per-tool setting",
      yaml: "servers:\n  fs:\n    command: x\n    pool: ''\n    domains: [files, files]\n    tools: { a: { core: true } }\n",
      expected: [
        /^servers\.fs\.pool: must NOT have fewer than 1 characters$/,
        /^servers\.fs\.domains: must NOT have duplicate items/,
        /^servers\.fs\.tools\.a\.core: is not a known setting$/,
      ],
    },
    {
      name: "a tool both core and excluded",
      yaml: "servers:\n  fs: { command: x, core: [a], exclude: [a] }\n",
      expected: [/^servers\.fs\.core\[0\]: a is also in exclude$/],
    },
    {
      name: "no servers key",
      yaml: "server: {}\n",
      expected: [/^servers: is required$/, /^server: is not a known setting$/],
    },
    {
      name: "an empty tenants list, a tenant that is not a tenant name and a repeated tenant",
      yaml: "servers:\n  a:\n    command: x\n    tenants: []\n  b:\n    command: x\n    tenants: [ok, '../b']\n  c:\n    command: x\n    tenants: [t, t]\n",
      expected: [/^servers\.a\.tenants: must NOT have fewer than 1 items$/, /^servers\.b\.tenants\[1\]: must match pattern/, /^servers\.c\.tenants: must NOT have duplicate items/],
    },
    { name: "an empty file", yaml: "# nothing\n", expected: [/the file is empty/] },
    { name: "invalid YAML", yaml: "servers: [\n", expected: [/at line \d+, column \d+/] },
  ];
  for (const { name, yaml, env, expected } of errorCases) {
    it(`servers config - ${name} is an error naming the field`, async () => {
      const problems = await problemsOf(yaml, env);
      assert.equal(problems.length, expected.length, `problems: ${JSON.stringify(problems)}`);
      for (const pattern of expected) {
        assert.ok(problems.some((problem) => pattern.test(problem)), `${pattern} not in ${JSON.stringify(problems)}`);
      }
    });
  }

  it("servers config - the error message names the file", async () => {
    const file = join(dir, "named.yaml");
    await writeFile(file, "servers:\n  fs: { command: 1 }\n");
    await assert.rejects(loadServersConfig(file, {}), { message: `${file}: servers.fs.command: must be string` });
    await assert.rejects(loadServersConfig(join(dir, "missing.yaml"), {}), /missing\.yaml: cannot read the file/);
  });

  it("servers config - the repo's switchyard.yaml loads with its defaults", async () => {
    const config = await loadServersConfig(REPO_CONFIG, {});
    const [filesystem, memory] = config.servers as StdioServerConfig[];
    assert.equal(config.servers.length, 2);
    assert.equal(filesystem?.name, "filesystem");
    assert.deepEqual(filesystem?.args, [join(REPO_ROOT, "examples/workspace")]);
    assert.deepEqual(filesystem?.exclude, ["read_file"]);
    assert.equal(memory?.name, "memory");
    assert.deepEqual(memory?.core, ["search_nodes"]);
    assert.equal(memory?.env["MEMORY_FILE_PATH"], join(REPO_ROOT, ".switchyard/memory.jsonl"));

    const moved = await loadServersConfig(REPO_CONFIG, { SWITCHYARD_WORKSPACE: "/srv/ws", SWITCHYARD_DATA_DIR: "/var/lib/sy" });
    const [fs2, memory2] = moved.servers as StdioServerConfig[];
    assert.deepEqual(fs2?.args, ["/srv/ws"]);
    assert.equal(memory2?.env["MEMORY_FILE_PATH"], "/var/lib/sy/memory.jsonl");
  });
});
