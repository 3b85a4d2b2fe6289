/**
 * The helper thread of a VectorBlock (dots-helper.ts): sleeps until the
 * search thread starts a query (a new generation in the control array),
 * takes the segments it was sent meanwhile, and claims segments until none
 * is left; the search thread waits for one it holds when it needs it. It
 * never returns to its event loop: its states come by `receiveMessageOnPort`.
 */
import { receiveMessageOnPort, workerData } from "node:worker_threads";
import { claimSegments, GENERATION } from "./dots-helper.js";
import type { HelperData, HelperState } from "./dots-helper.js";
import { dotSegment, queryDimensions } from "./segment-dots.js";

const { control, port } = workerData as HelperData;
let state: HelperState | undefined;

for (let seen = 0; ; ) {
  Atomics.wait(control, GENERATION, seen);
  seen = Atomics.load(control, GENERATION);
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) state = m.message as HelperState;
  const { segments, segmentSize, query, out, made } = state!;
  // read after a claim: one that sees this generation also sees the query written before it
  let dims: number[] | undefined;
  claimSegments(control, made, seen, segments.length, (s) => {
    dims ??= queryDimensions(query);
    dotSegment(segments, s, segmentSize, query, dims, out);
  });
}
