/**
 * The helper thread of a VectorBlock (dots-helper.ts): keeps the segments
 * it is sent, and for each query's generation claims segments until none is
 * left. The search thread waits for any it holds.
 */
import { parentPort } from "node:worker_threads";
import { claimSegments } from "./dots-helper.js";
import type { HelperState } from "./dots-helper.js";
import { dotSegment, queryDimensions } from "./segment-dots.js";

let state: HelperState | undefined;

parentPort!.on("message", (message: HelperState | number) => {
  if (typeof message !== "number") {
    state = message;
    return;
  }
  const { segments, segmentSize, query, out, control } = state!;
  // read after a claim: one that sees this generation also sees the query written before it
  let dims: number[] | undefined;
  claimSegments(control, message, segments.length, (s) => {
    dims ??= queryDimensions(query);
    dotSegment(segments, s, segmentSize, query, dims, out);
  });
});
