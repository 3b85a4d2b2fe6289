/** How a cost grows between two catalog sizes. */
export interface Growth {
  from: number;
  to: number;
  /** cost(to) / cost(from). */
  factor: number;
  /** k in cost ∝ size^k between the two sizes: 1 is linear, 0 flat. */
  exponent: number;
  /** Extra cost per 1,000 tools, in the cost's unit. */
  perThousand: number;
}

export function growth(from: { size: number; cost: number }, to: { size: number; cost: number }): Growth {
  if (from.size <= 0 || to.size <= from.size) throw new Error(`growth needs 0 < from.size < to.size, got ${from.size} and ${to.size}`);
  const factor = from.cost > 0 ? to.cost / from.cost : Number.NaN;
  return {
    from: from.size,
    to: to.size,
    factor,
    exponent: Math.log(factor) / Math.log(to.size / from.size),
    perThousand: ((to.cost - from.cost) / (to.size - from.size)) * 1000,
  };
}

/** "p50 ×83.1 from 1,000 to 100,000 tools (∝ tools^0.96, +0.27 ms per 1,000 tools)". */
export function describeGrowth(what: string, g: Growth, unit: string): string {
  const n = (x: number): string => x.toLocaleString("en-US");
  // a shrinking figure (a rate) needs significant digits, not one decimal: ×0.046, not ×0.0
  const perThousand = `${g.perThousand >= 0 ? "+" : ""}${g.perThousand.toFixed(3)} ${unit} per 1,000 tools`;
  // a figure of 0 or less at the smaller size (a heap that the previous system's garbage offset) has no ratio
  if (Number.isNaN(g.factor)) return `${what} from ${n(g.from)} to ${n(g.to)} tools: ${perThousand} (no ratio: not above 0 at ${n(g.from)})`;
  const factor = g.factor >= 1 ? g.factor.toFixed(1) : g.factor.toPrecision(2);
  return `${what} ×${factor} from ${n(g.from)} to ${n(g.to)} tools (∝ tools^${g.exponent.toFixed(2)}, ${perThousand})`;
}
