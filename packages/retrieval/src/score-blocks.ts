/**
 * A search keeps, for each part of a tool's score, the highest value in every
 * block of SCORE_BLOCK consecutive slots; the parts' highest values bound the
 * block's best score, so the scan that picks the top skips every block whose
 * bound is below the top's last score (block-max pruning). The parts add
 * over a query's words, and the top is a handful of tools: at 100,000 tools
 * nearly every block is skipped.
 */
export const SCORE_BLOCK_BITS = 6;
export const SCORE_BLOCK = 1 << SCORE_BLOCK_BITS;

/** Raises the highest value kept for `slot`'s block to `value` if it is higher. */
export function raiseBlockMaximum(maxima: Float64Array, slot: number, value: number): void {
  const block = slot >>> SCORE_BLOCK_BITS;
  if (value > maxima[block]!) maxima[block] = value;
}

/** The blocks that hold `slots` slots. */
export function blockCount(slots: number): number {
  return (slots + SCORE_BLOCK - 1) >>> SCORE_BLOCK_BITS;
}
