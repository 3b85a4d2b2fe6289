import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { cpuDuring, cpuTicksOfStat, processLabel, rssBytesOf, rssByWindow, rssBytesOfStatus, rssGrowth } from "../src/perf/process-usage.js";

const noProc = existsSync("/proc/self/stat") ? false : "no /proc on this system";

describe("process-usage", () => {
  it("process-usage - CPU ticks: utime + stime, counted after a command name with spaces and parentheses", () => {
    const stat = "4242 (node (a) b) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 25 0 0 20 0 11 0 100 1000000 5000";
    assert.equal(cpuTicksOfStat(stat), 175);
  });

  it("process-usage - RSS from a status text, in bytes; none for a process without memory", () => {
    assert.equal(rssBytesOfStatus("Name:\tnode\nVmPeak:\t 900 kB\nVmRSS:\t   2048 kB\nThreads:\t11\n"), 2048 * 1024);
    assert.equal(rssBytesOfStatus("Name:\tzombie\nState:\tZ (zombie)\n"), 0);
  });

  it("process-usage - a process is named by the package its script is in, or by its program", () => {
    const bin = "node\0/r/services/executor/node_modules/.bin/../@modelcontextprotocol/server-filesystem/dist/index.js\0/tmp/ws\0";
    assert.equal(processLabel(bin), "@modelcontextprotocol/server-filesystem");
    assert.equal(processLabel("/usr/bin/node\0/r/node_modules/.pnpm/x@1/node_modules/tsx/dist/cli.mjs\0"), "tsx");
    assert.equal(processLabel("/usr/local/bin/nats-server\0-c\0/tmp/nats.conf\0"), "nats-server");
  });

  it("process-usage - RSS growth: the mean of the first window against the last", () => {
    const mb = 2 ** 20;
    const samples = [0, 5, 10, 15, 20, 25].map((s, i) => ({ atMs: s * 1000, bytes: (100 + (i < 3 ? 0 : 10)) * mb }));
    assert.deepEqual(rssGrowth(samples, 10_000), { firstMb: 100, lastMb: 110, growth: 0.1 });
    assert.equal(rssGrowth([], 10_000), undefined);
    // by consecutive windows from the first sample: 0-9 s, 10-19 s, 20-29 s
    assert.deepEqual(rssByWindow(samples, 10_000), [100, 105, 110]);
  });

  it("process-usage - this process: its CPU time while it works, as Node counts it, and its memory", { skip: noProc }, async () => {
    const before = process.cpuUsage();
    const { value, cpuMs, byProcess } = await cpuDuring(new Map([["this", process.pid]]), async () => {
      // spin until 200 ms of CPU are spent, however busy the machine is
      let spins = 0;
      while (process.cpuUsage(before).user < 200_000) spins++;
      return spins;
    });
    const spent = process.cpuUsage(before);
    assert.ok(value > 0);
    // /proc counts clock ticks (10 ms each on Linux)
    assert.ok(Math.abs(cpuMs - (spent.user + spent.system) / 1000) <= 30, `${cpuMs} ms against ${(spent.user + spent.system) / 1000}`);
    assert.deepEqual([...byProcess], [["this", cpuMs]]);
    assert.ok(rssBytesOf(process.pid)! > 10 * 2 ** 20);
  });
});
