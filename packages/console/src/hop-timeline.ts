import type { Hop } from "./types.js";

/** A hop placed on the packet's timeline: ms after the first hop began, and how long it took. */
export interface PlacedHop {
  hop: Hop;
  offsetMs: number;
  durationMs: number;
}

/**
 * Places each hop by its start time; a hop without a recorded duration lasts until the next
 * one starts (the time it waited on the bus counts toward it).
 */
export function placeHops(hops: Hop[]): { placed: PlacedHop[]; totalMs: number } {
  const starts = hops.map((hop) => (hop.startedAt ? Date.parse(hop.startedAt) : Number.NaN));
  const known = starts.filter((start) => !Number.isNaN(start));
  const origin = known.length ? Math.min(...known) : 0;
  const placed = hops.map((hop, i) => {
    const start = Number.isNaN(starts[i]!) ? origin : starts[i]!;
    const next = starts[i + 1];
    const untilNext = next !== undefined && !Number.isNaN(next) ? Math.max(0, next - start) : 0;
    return { hop, offsetMs: start - origin, durationMs: hop.durationMs || untilNext };
  });
  const totalMs = Math.max(1, ...placed.map((p) => p.offsetMs + p.durationMs));
  return { placed, totalMs };
}
