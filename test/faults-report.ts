/**
 * What each fault test (issue 6 groups 1-5) measured, appended as a JSON line to
 * $SWITCHYARD_FAULTS_REPORT when set, so `pnpm test:faults` can sum the runs into
 * one "sent N, completed N, lost 0, duplicate side effects 0" line.
 */
import { appendFileSync } from "node:fs";

export interface FaultRun {
  /** The test that ran, e.g. "kill -9 each stage". */
  test: string;
  /** Packets the gateway accepted (2xx). */
  sent: number;
  /** Accepted packets that reached exactly one terminal state. */
  completed: number;
  /** Accepted packets that never reached a terminal state. */
  lost: number;
  /** Side effects beyond one per packet (lines counted in the tool's file). */
  duplicateSideEffects: number;
  /** Accepted packets that ended only because the reconciler published them again (their header's `resumes`); absent where not counted. */
  resumed?: number;
}

export function reportFaultRun(run: FaultRun): void {
  const file = process.env.SWITCHYARD_FAULTS_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify(run)}\n`);
}
