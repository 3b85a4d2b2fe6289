/** The comment a generated block starts after: `<!-- routing-figures:begin -->`. */
export const beginMarker = (name: string): string => `<!-- ${name}:begin -->`;
/** The comment a generated block ends before. */
export const endMarker = (name: string): string => `<!-- ${name}:end -->`;

/**
 * `text` with what lies between each block's markers replaced by the block. Every marker
 * must be there once, the begin before the end; otherwise it throws naming the marker and
 * the file (`file` is only for the message), so a document whose markers were lost fails
 * loudly instead of keeping stale figures.
 */
export function fillMarked(text: string, blocks: Readonly<Record<string, string>>, file: string): string {
  let out = text;
  for (const [name, block] of Object.entries(blocks)) {
    const begin = beginMarker(name);
    const end = endMarker(name);
    for (const marker of [begin, end]) {
      const count = out.split(marker).length - 1;
      if (count !== 1) throw new Error(`${file}: ${count === 0 ? "no" : `${count} times the`} marker ${marker}; the generated figures go between ${begin} and ${end}`);
    }
    const from = out.indexOf(begin) + begin.length;
    const to = out.indexOf(end);
    if (to < from) throw new Error(`${file}: ${end} comes before ${begin}`);
    out = `${out.slice(0, from)}\n${block}\n${out.slice(to)}`;
  }
  return out;
}
