/**
 * The `limit` best items, best first: higher score, then the smaller name.
 * A search keeps a handful out of thousands, so a short sorted list that only
 * admits items beating its last one does less work than sorting them all.
 */
export function topK<T>(items: readonly T[], limit: number, score: (item: T) => number, name: (item: T) => string): T[] {
  const better = (a: T, b: T): boolean => {
    const d = score(a) - score(b);
    return d !== 0 ? d > 0 : name(a) < name(b);
  };
  const top: T[] = [];
  if (limit <= 0) return top;
  // asked for a good share of them (core tools' scores), sorting wins
  if (limit * 8 >= items.length) return [...items].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0)).slice(0, limit);
  for (const item of items) {
    if (top.length === limit && !better(item, top[limit - 1]!)) continue;
    let at = top.length === limit ? limit - 1 : top.length;
    while (at > 0 && better(item, top[at - 1]!)) {
      top[at] = top[at - 1]!;
      at--;
    }
    top[at] = item;
  }
  return top;
}
