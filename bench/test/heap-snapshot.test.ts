import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, describe, it } from "node:test";
import { heapSnapshotArgs, heapSnapshotMb } from "../src/perf/heap-snapshot.js";

describe("heap-snapshot", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-heap-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("heap-snapshot - a process's live heap, read from the snapshot it writes on SIGUSR2, grows with what it keeps", async () => {
    // keeps 40 MB of strings once it has been asked for its first snapshot
    const script = `process.stdout.write("ready\\n"); let kept = []; process.on("SIGUSR2", () => { if (kept.length === 0) setTimeout(() => { for (let i = 0; i < 400_000; i++) kept.push("x".repeat(80) + i); process.stdout.write("kept\\n"); }, 100); }); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, [...heapSnapshotArgs(dir), "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    // kept whole: a line printed while no one waits for it (during the first snapshot) is not lost
    let printed = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (printed += chunk));
    const untilPrinted = async (line: string) => {
      const deadline = Date.now() + 60_000;
      while (!printed.includes(`${line}\n`)) {
        if (Date.now() > deadline) throw new Error(`the child did not print ${line}: ${JSON.stringify(printed)}`);
        await sleep(50);
      }
    };
    try {
      await untilPrinted("ready");
      const before = await heapSnapshotMb(child.pid!, dir);
      await untilPrinted("kept");
      const afterKeeping = await heapSnapshotMb(child.pid!, dir);
      assert.ok(before > 0.5 && before < 20, `an idle process: ${before} MB`);
      assert.ok(afterKeeping - before > 30, `${before} → ${afterKeeping} MB`);
    } finally {
      child.kill();
    }
  });
});
