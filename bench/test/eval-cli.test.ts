import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseEvalArgs } from "../src/cli-args.js";
import { Progress } from "../src/progress.js";
import { TINY_CASES, TINY_TOOLS } from "./fixtures.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CLI = fileURLToPath(new URL("../src/eval-cli.ts", import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", CLI, ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("eval-cli", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-eval-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const tools = join(dir, "tiny.tools.jsonl");
  const queries = join(dir, "tiny.queries.jsonl");
  writeFileSync(tools, TINY_TOOLS.map((t) => JSON.stringify(t)).join("\n") + "\n");
  writeFileSync(queries, TINY_CASES.map((c) => JSON.stringify(c)).join("\n") + "\n");

  it("eval-cli - a run on a tools and a queries file prints JSON and writes the results and the report", () => {
    const out = join(dir, "results");
    const r = runCli(["--tools", tools, "--queries", queries, "--json", "--by-tag", "--out", out, "--latency-tools", "40"]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.length, 1);
    const result = JSON.parse(lines[0]!);
    assert.equal(result.dataset, "tiny");
    assert.equal(result.n, TINY_CASES.length);
    assert.deepEqual(Object.keys(result.recall), ["1", "3", "5", "10"]);
    assert.equal(typeof result.falseNoTool, "number");
    assert.equal(result.toolNeedModel, "leave-one-catalog-out");
    assert.deepEqual(Object.keys(result.byTag).sort(), ["multi-step", "plain", "small-talk"]);
    // stderr is not a terminal here: one line per dataset instead of a bar
    assert.match(r.stderr, /^tiny: 6 cases, recall@5 \d\.\d{3}/m);
    assert.match(r.stderr, /latency at 40 tools/);

    assert.deepEqual(JSON.parse(readFileSync(join(out, "tiny.json"), "utf8")), result);
    const report = readFileSync(join(out, "report.md"), "utf8");
    assert.match(report, /\| tiny \| 6 \|/);
    assert.match(report, /!\[recall@k per dataset\]\(recall-at-k\.svg\)/);
    assert.match(report, /padded to 40 tools/);
    assert.match(report, /## Where the requests that need a tool ended/);
    assert.match(report, /## The review's confidence: does 0\.7 mean 70 % right\?/);
    assert.match(report, /!\[reliability diagram\]\(reliability\.svg\)/);
    assert.ok(existsSync(join(out, "reliability.svg")));
    assert.match(report, /\| tiny · plain \| {2}\| \d\.\d{3} \|/);
    assert.ok(existsSync(join(out, "recall-at-k.svg")));
  });

  it("eval-cli - a bad option is refused with the usage and exit code 2", () => {
    const r = runCli(["--learn-fraction", "1.5", "--tools", tools, "--queries", queries]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--learn-fraction must be in \[0, 1\)/);
    assert.match(r.stderr, /Usage: pnpm eval/);
  });

  it("eval-cli - arguments: repeated and comma-separated datasets, defaults", () => {
    const args = parseEvalArgs(["--dataset", "metatool,bfcl", "--dataset", "apibank", "--candidates"]);
    assert.deepEqual(args.datasets, ["metatool", "bfcl", "apibank"]);
    assert.equal(args.candidates, true);
    assert.equal(args.learnFraction, 0);
    assert.equal(args.json, false);
    assert.throws(() => parseEvalArgs(["--tools", "x"]), /--tools and --queries go together/);
    assert.throws(() => parseEvalArgs(["--seed", "abc"]), /--seed must be a number/);
  });

  it("eval-cli - the progress bar is drawn in place on a terminal only", () => {
    const written: string[] = [];
    const tty = new Progress({ isTTY: true, write: (s: string) => written.push(s) > 0 }, "d");
    tty.update(5, 10);
    tty.done("ok");
    assert.match(written[0]!, /^\rd █+░+ 5\/10$/);
    assert.equal(written.at(-1), "d: ok\n");

    const plain: string[] = [];
    const pipe = new Progress({ isTTY: false, write: (s: string) => plain.push(s) > 0 }, "d");
    pipe.update(5, 10);
    pipe.done("ok");
    assert.deepEqual(plain, ["d: ok\n"]);
  });
});
