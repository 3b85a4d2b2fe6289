// `pnpm test:faults`: the fault tests (issue 6, groups 1-5; issue 15, the cluster; issue 38, the reconciler) alone, then one line that
// sums what they measured: "sent N, completed N, lost 0, duplicate side effects 0".
// Each test appends its run to $SWITCHYARD_FAULTS_REPORT (test/faults-report.ts).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FILES = [
  "test/fleet-chaos-kill.test.ts", // 1: kill -9 each stage under load
  "test/fleet-chaos-nats-restart.test.ts", // 2: nats-server restart
  "test/fleet-exactly-once.test.ts", // 3: two executors, forced redelivery
  "test/fleet-dead-letter.test.ts", // 4: a tool that always fails
  "test/fleet-chaos-proxy.test.ts", // 5: fault-injecting proxy
  "test/fleet-chaos-cluster.test.ts", // 6: a three-server cluster loses stream, bucket and consumer leaders
  "test/fleet-reconciler.test.ts", // issue 38: messages deleted from the stream, a consumer deleted
];

const dir = mkdtempSync(join(tmpdir(), "switchyard-faults-"));
const report = join(dir, "runs.jsonl");
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", ...FILES], {
  stdio: "inherit",
  env: { ...process.env, SWITCHYARD_FAULTS_REPORT: report },
});

const runs = existsSync(report)
  ? readFileSync(report, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line))
  : [];
rmSync(dir, { recursive: true, force: true });
const sum = (field) => runs.reduce((total, run) => total + run[field], 0);
// "resumed": packets that ended only because the reconciler published them again (issue 38).
const resumed = (run) => (run.resumed === undefined ? "" : `, resumed by the reconciler ${run.resumed}`);
for (const run of runs) {
  console.log(`  ${run.test}: sent ${run.sent}, completed ${run.completed}, lost ${run.lost}, duplicate side effects ${run.duplicateSideEffects}${resumed(run)}`);
}
const [lost, duplicates] = [sum("lost"), sum("duplicateSideEffects")];
console.log(`sent ${sum("sent")}, completed ${sum("completed")}, lost ${lost}, duplicate side effects ${duplicates}, resumed by the reconciler ${runs.reduce((total, run) => total + (run.resumed ?? 0), 0)}`);
process.exit(result.status !== 0 || runs.length === 0 || lost > 0 || duplicates > 0 ? 1 : 0);
