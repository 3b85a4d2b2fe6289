/**
 * Tool names as bags of stems, for one question: how much of a tool's name
 * does the query cover? Names say what a tool does in two or three words
 * ("create_directory"), while descriptions repeat boilerplate that every tool
 * of a server shares ("Only works within allowed directories"), which drowns
 * the name's words in BM25. Each name word is weighted by how rare it is among
 * the names, so "create" counts for more than "file" in a filesystem catalog.
 */
export class NameIndex {
  private readonly names = new Map<string, readonly string[]>();
  private readonly df = new Map<string, number>();
  /** The ids whose name has a stem: a query reaches the names it can cover without looking at the rest. */
  private readonly byStem = new Map<string, Set<string>>();
  /** idf by stem, filled as searches ask; any change to the names empties it. */
  private readonly idfs = new Map<string, number>();

  set(id: string, stems: readonly string[]): void {
    this.delete(id);
    this.idfs.clear();
    const unique = [...new Set(stems)];
    this.names.set(id, unique);
    for (const s of unique) {
      this.df.set(s, (this.df.get(s) ?? 0) + 1);
      let ids = this.byStem.get(s);
      if (!ids) this.byStem.set(s, (ids = new Set()));
      ids.add(id);
    }
  }

  delete(id: string): boolean {
    const old = this.names.get(id);
    if (!old) return false;
    this.idfs.clear();
    for (const s of old) {
      const n = (this.df.get(s) ?? 1) - 1;
      if (n > 0) this.df.set(s, n);
      else this.df.delete(s);
      const ids = this.byStem.get(s);
      ids?.delete(id);
      if (ids?.size === 0) this.byStem.delete(s);
    }
    this.names.delete(id);
    return true;
  }

  /**
   * The share of the name's weight that the query matches, in [0, 1]:
   * `matches` maps a stem to how well the query matches it (1 for a query
   * word, less for a related word).
   */
  coverage(id: string, matches: ReadonlyMap<string, number>): number {
    const stems = this.names.get(id);
    if (!stems || stems.length === 0) return 0;
    let total = 0;
    let matched = 0;
    for (const s of stems) {
      const idf = this.idf(s);
      total += idf;
      matched += idf * (matches.get(s) ?? 0);
    }
    return total > 0 ? matched / total : 0;
  }

  /** `coverage` of every name the query matches at all; the names left out cover nothing of it. */
  coverages(matches: ReadonlyMap<string, number>): Map<string, number> {
    const out = new Map<string, number>();
    for (const [stem, weight] of matches) {
      if (weight <= 0) continue;
      for (const id of this.byStem.get(stem) ?? []) if (!out.has(id)) out.set(id, this.coverage(id, matches));
    }
    return out;
  }

  private idf(stem: string): number {
    let idf = this.idfs.get(stem);
    if (idf === undefined) {
      const df = this.df.get(stem) ?? 0;
      const n = this.names.size;
      idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      this.idfs.set(stem, idf);
    }
    return idf;
  }
}
