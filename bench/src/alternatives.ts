import type { BenchCase } from "@switchyard/bench-data";

/**
 * `ranked` with each tool a case accepts in place of an expected one (its `alternatives`:
 * LiveMCPBench names a tool, not its server) named as that expected tool. A second tool that
 * stands for the same expected one keeps its rank but matches nothing (""), so it is not counted twice.
 */
export function asExpected(ranked: readonly string[], c: Pick<BenchCase, "alternatives">): string[] {
  if (!c.alternatives) return [...ranked];
  const standsFor = new Map(Object.entries(c.alternatives).flatMap(([name, others]) => others.map((other) => [other, name] as const)));
  const seen = new Set<string>();
  return ranked.map((name) => {
    const own = standsFor.get(name) ?? name;
    if (seen.has(own)) return "";
    seen.add(own);
    return own;
  });
}

/** Whether `tool` is one of the case's expected tools, or one it accepts in place of one. */
export function isExpected(tool: string, c: Pick<BenchCase, "expected" | "alternatives">): boolean {
  return c.expected.includes(tool) || Object.values(c.alternatives ?? {}).some((others) => others.includes(tool));
}
