import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fleetSkipReason } from "./harness.js";
import { ctrlC, freePortRun, REPO_ROOT, start } from "./start-script.js";

const EXAMPLE = "what is written in my notes about the garden";

describe("pnpm start - a local fleet that keeps what it learned, on loopback, and stops cleanly", { skip: fleetSkipReason() }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-start-"));
  let base: number;
  let env: Record<string, string>;

  before(async () => {
    base = await freePortRun();
    env = { SWITCHYARD_DATA_DIR: dataDir, HTTP_PORT: String(base), GRPC_PORT: "0", HEALTH_PORT: "9", NATS_URL: "" };
  });

  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("pnpm start - each service on its own port after HTTP_PORT, printed in the banner, all on 127.0.0.1", async () => {
    const started = await start(env);
    try {
      const banner = started.output();
      assert.match(banner, /HEALTH_PORT=9 ignored/);
      assert.match(banner, new RegExp(`HTTP +http://127\\.0\\.0\\.1:${base}`));
      assert.match(banner, new RegExp(`intent :${base + 1}, embedding-router :${base + 2}, selector :${base + 3}, reviewer :${base + 4}, executor :${base + 5}`));
      assert.match(banner, /\/v1\/messages → none: set ANTHROPIC_BASE_URL/, "a model door without an upstream says which setting gives it one");
      for (let port = base; port <= base + 5; port++) {
        assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, `port ${port}`);
      }
      // Nothing of the fleet listens beyond loopback: its processes' listening sockets, from the kernel's table.
      const listening = spawnSync("ss", ["-Hltnp"], { encoding: "utf8" }).stdout.split("\n");
      const ours = listening.filter((line) => [...line.matchAll(/pid=(\d+)/g)].some(([, pid]) => isFleetProcess(Number(pid), dataDir)));
      assert.ok(ours.length >= 8, `the fleet's sockets:\n${ours.join("\n")}`);
      for (const line of ours) assert.match(line, /\s127\.0\.0\.1:\d+\s/, line);

      const taught = await fetch(`http://127.0.0.1:${base}/v1/tools/filesystem.read_text_file/examples`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ examples: [EXAMPLE] }),
      });
      assert.equal(taught.status, 200);
    } finally {
      assert.equal(await ctrlC(started), 0, started.output());
    }
    const output = started.output();
    assert.match(output, /Switchyard stopped\./);
    assert.doesNotMatch(output, /drain failed|\berror\b|Error:/i, output);
  });

  it("pnpm start - the example taught before Ctrl-C is there after the next start", async () => {
    const started = await start(env);
    try {
      const catalog = (await (await fetch(`http://127.0.0.1:${base}/v1/tools`)).json()) as { tools: { name: string; examples: string[] }[] };
      const tool = catalog.tools.find((candidate) => candidate.name === "filesystem.read_text_file");
      assert.ok(tool?.examples.includes(EXAMPLE), JSON.stringify(tool?.examples));
      const reset = spawnSync(process.execPath, ["scripts/reset.mjs"], { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: "utf8" });
      assert.equal(reset.status, 1, "no reset while the fleet runs");
      assert.match(reset.stderr, /stop it/);
    } finally {
      assert.equal(await ctrlC(started), 0, started.output());
    }
  });

  it("pnpm start - a port that is taken is one line naming it and the setting to change, and no process stays behind", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(base + 3, "127.0.0.1", resolve));
    try {
      const child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      assert.equal(code, 1, output);
      assert.match(output, new RegExp(`port ${base + 3} on 127\\.0\\.0\\.1 is taken by another process`));
      assert.match(output, /set HTTP_PORT to move them all/);
      assert.doesNotMatch(output, /EADDRINUSE|^\s+at /m, "no stack trace");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    assert.deepEqual(fleetProcesses(dataDir), [], "no service or nats-server of the failed start still runs");
  });

  it("pnpm start - Ctrl-C while the services start stops them and NATS, and no process stays behind", async () => {
    // NATS is up and the services are on their way: none of them is ready yet.
    const started = await start(env, "nats-server with JetStream on");
    assert.doesNotMatch(started.output(), /Ctrl-C stops it/);
    assert.equal(await ctrlC(started), 0, started.output());
    assert.match(started.output(), /Switchyard stopped\./);
    assert.doesNotMatch(started.output(), /Switchyard is up/);
    assert.deepEqual(fleetProcesses(dataDir), [], "no service or nats-server of the aborted start still runs");
  });

  it("pnpm reset - empties the data folder once the fleet has stopped", () => {
    assert.ok(existsSync(join(dataDir, "nats")));
    const reset = spawnSync(process.execPath, ["scripts/reset.mjs"], { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: "utf8" });
    assert.equal(reset.status, 0, reset.stderr);
    assert.equal(existsSync(dataDir), false);
  });
});

/** The pids of the fleet's processes still running on this data folder. */
function fleetProcesses(dataDir: string): string[] {
  return readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && isFleetProcess(Number(entry), dataDir));
}

/** True for a process of the fleet under test: a service or nats-server started with this data folder. */
function isFleetProcess(pid: number, dataDir: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return environ.includes(`SWITCHYARD_DATA_DIR=${dataDir}`) || args.includes(dataDir);
  } catch {
    return false;
  }
}
