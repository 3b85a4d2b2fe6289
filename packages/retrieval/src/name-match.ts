/**
 * Tool names as bags of stems, for one question: how much of a tool's name
 * does the query cover? Names say what a tool does in two or three words
 * ("create_directory"), while descriptions repeat boilerplate that every tool
 * of a server shares ("Only works within allowed directories"), which drowns
 * the name's words in BM25. Each name word is weighted by how rare it is among
 * the names, so "create" counts for more than "file" in a filesystem catalog.
 * Names are keyed by number (the index's slot for the tool) and their stems
 * numbered too, so that a search works in arrays instead of maps.
 */
export class NameIndex {
  private readonly stemOf = new Map<string, number>();
  /** Each name's distinct stems by number, in order of appearance. */
  private readonly names: (readonly number[] | undefined)[] = [];
  private size = 0;
  /** By stem number: how many names have it, and which (a query reaches the names it can cover without looking at the rest). */
  private readonly df: number[] = [];
  private readonly byStem: number[][] = [];
  /** idf by stem number and each name's total idf by id, made at the first search after the names change. */
  private stats: { idfs: Float64Array; totals: Float64Array } | undefined;
  /** A query's match weights by stem number (0 for the rest); its matched idf and matched stems so far by name id. */
  private weights = new Float64Array(0);
  private sums = new Float64Array(0);
  private counts = new Uint16Array(0);

  set(id: number, stems: readonly string[]): void {
    this.delete(id);
    this.stats = undefined;
    const unique = [...new Set(stems)].map((s) => {
      let n = this.stemOf.get(s);
      if (n === undefined) {
        n = this.df.length;
        this.stemOf.set(s, n);
        this.df.push(0);
        this.byStem.push([]);
      }
      return n;
    });
    this.names[id] = unique;
    this.size++;
    for (const n of unique) {
      this.df[n]!++;
      this.byStem[n]!.push(id);
    }
  }

  delete(id: number): boolean {
    const old = this.names[id];
    if (!old) return false;
    this.stats = undefined;
    for (const n of old) {
      this.df[n]!--;
      const ids = this.byStem[n]!;
      // order does not matter: the last id fills the hole
      ids[ids.indexOf(id)] = ids[ids.length - 1]!;
      ids.pop();
    }
    this.names[id] = undefined;
    this.size--;
    return true;
  }

  /**
   * The share of the name's weight that the query matches, in [0, 1]:
   * `matches` maps a stem to how well the query matches it (1 for a query
   * word, less for a related word).
   */
  coverage(id: number, matches: ReadonlyMap<string, number>): number {
    const { totals } = this.statsNow();
    const total = totals[id] ?? 0;
    return this.withWeights(matches, () => (total > 0 ? this.matchedOf(id) / total : 0));
  }

  /**
   * Calls `each` with the `coverage` of every name the query matches at all;
   * the names left out cover nothing of it. Summed stem by stem over the
   * names that have each, in the query's order rather than the name's: the
   * same sum while a name matches at most two stems (addition commutes), and
   * a name that matches more is summed again in its own order.
   */
  coverages(matches: ReadonlyMap<string, number>, each: (id: number, coverage: number) => void): void {
    const { idfs, totals } = this.statsNow();
    const { sums, counts } = this;
    this.withWeights(matches, (stems) => {
      const reached: number[] = [];
      for (const stem of stems) {
        const share = idfs[stem]! * this.weights[stem]!;
        for (const id of this.byStem[stem]!) {
          if (counts[id]!++ === 0) reached.push(id);
          sums[id]! += share;
        }
      }
      for (const id of reached) {
        const total = totals[id]!;
        const matched = counts[id]! > 2 ? this.matchedOf(id) : sums[id]!;
        each(id, total > 0 ? matched / total : 0);
        sums[id] = 0;
        counts[id] = 0;
      }
    });
  }

  /** Runs `use` with the query's matches in `weights` by stem number, given the stems it matches that names have. */
  private withWeights<T>(matches: ReadonlyMap<string, number>, use: (stems: number[]) => T): T {
    if (this.weights.length < this.df.length) this.weights = new Float64Array(this.df.length);
    const stems: number[] = [];
    for (const [stem, weight] of matches) {
      const n = this.stemOf.get(stem);
      if (n === undefined || weight <= 0) continue;
      this.weights[n] = weight;
      stems.push(n);
    }
    try {
      return use(stems);
    } finally {
      for (const n of stems) this.weights[n] = 0;
    }
  }

  /** The idf of the name's stems times how well the query matches each, summed in the name's order. */
  private matchedOf(id: number): number {
    const { idfs } = this.statsNow();
    let matched = 0;
    for (const s of this.names[id] ?? []) matched += idfs[s]! * this.weights[s]!;
    return matched;
  }

  private statsNow(): { idfs: Float64Array; totals: Float64Array } {
    if (this.stats) return this.stats;
    const idfs = Float64Array.from(this.df, (df) => Math.log(1 + (this.size - df + 0.5) / (df + 0.5)));
    const totals = new Float64Array(this.names.length);
    this.names.forEach((stems, id) => {
      let total = 0;
      for (const s of stems ?? []) total += idfs[s]!;
      totals[id] = total;
    });
    if (this.sums.length < this.names.length) {
      this.sums = new Float64Array(this.names.length);
      this.counts = new Uint16Array(this.names.length);
    }
    this.stats = { idfs, totals };
    return this.stats;
  }
}
