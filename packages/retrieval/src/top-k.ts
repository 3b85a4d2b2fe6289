/**
 * The best `limit` items offered so far, best first: higher score, then the
 * smaller name. A search keeps a handful out of thousands, so a short sorted
 * list that only admits items beating its last one does less work than
 * sorting them all; `admits` lets a caller skip building an item that would
 * not get in.
 */
export class TopList<T> {
  readonly items: T[] = [];
  private readonly compare: (a: T, b: T) => number;

  constructor(
    private readonly limit: number,
    private readonly score: (item: T) => number,
    private readonly name: (item: T) => string,
  ) {
    this.compare = order(score, name);
  }

  /** Whether an item with this score and name would enter the list now. */
  admits(score: number, name: string): boolean {
    if (this.limit <= 0) return false;
    if (this.items.length < this.limit) return true;
    const last = this.items[this.limit - 1]!;
    const d = score - this.score(last);
    return d !== 0 ? d > 0 : name < this.name(last);
  }

  offer(item: T): void {
    if (!this.admits(this.score(item), this.name(item))) return;
    let at = this.items.length === this.limit ? this.limit - 1 : this.items.length;
    while (at > 0 && this.better(item, this.items[at - 1]!)) {
      this.items[at] = this.items[at - 1]!;
      at--;
    }
    this.items[at] = item;
  }

  private better(a: T, b: T): boolean {
    return this.compare(a, b) < 0;
  }
}

/** Best first: the higher score, then the smaller name. */
function order<T>(score: (item: T) => number, name: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => score(b) - score(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
}

/** The `limit` best items, best first (TopList's order). */
export function topK<T>(items: readonly T[], limit: number, score: (item: T) => number, name: (item: T) => string): T[] {
  if (limit <= 0) return [];
  // asked for a good share of them (core tools' scores), sorting wins
  if (limit * 8 >= items.length) return [...items].sort(order(score, name)).slice(0, limit);
  const top = new TopList(limit, score, name);
  for (const item of items) top.offer(item);
  return top.items;
}
