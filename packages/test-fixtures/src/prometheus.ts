/**
 * One sample of a Prometheus text exposition (what `GET /metrics` answers): the value of
 * the series `name` whose labels include `labels`, or undefined when there is none. Several
 * matching series are summed, so a test need not name labels it does not care about.
 */
export function promSample(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of exposition.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) total = (total ?? 0) + Number(match[3]);
  }
  return total;
}
