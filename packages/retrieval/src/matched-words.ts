import type { ToolDefinition } from "@switchyard/packet";
import { splitWords, withoutValues } from "@switchyard/request-text";
import type { Correction } from "@switchyard/request-text";
import { relatedStems } from "./concepts.js";
import { tokenize, wordToken } from "./text.js";
import { stemMatch, toolStems } from "./tool-need.js";
import type { CatalogStats } from "./tool-need.js";

/** How many words a candidate's explanation names at most (RoutingCandidate.matched_words). */
export const MAX_MATCHED_WORDS = 8;

/**
 * Why a routed tool is a candidate, for a person: the request's words (as the
 * request spells them, lower-cased) that the tool's text or the example that
 * scored it shares, strongest first. A word's strength is what the tool-need
 * gate's coverage gives it (tool-need.ts): its idf across the catalog, half for
 * a related word (concepts.ts); a typo counts as the word it was read as
 * (`corrections`, the spelling vocabulary's), the stem it was searched with.
 * Returns a function of one candidate, so the request is split once for all of them.
 */
export function matchedWords(
  written: string,
  corrections: readonly Correction[],
  catalog: CatalogStats,
): (tool: ToolDefinition, example?: string) => string[] {
  const read = new Map(corrections.map((c) => [c.written, c.read]));
  const words = new Map<string, { stemmed: string; related: readonly string[]; idf: number }>();
  for (const word of splitWords(written)) {
    // a correction is a word of the catalog's vocabulary, as splitWords gives words
    const stemmed = wordToken(read.get(word) ?? word);
    if (stemmed !== undefined && !words.has(word)) words.set(word, { stemmed, related: relatedStems(stemmed), idf: catalog.idf.get(stemmed) ?? catalog.unknown });
  }
  return (tool, example) => {
    const own = toolStems(tool);
    // an example is compared without its values, as the index compares it (text.ts `exampleDocuments`)
    const taught = example ? new Set(tokenize(withoutValues(example))) : undefined;
    const strong: { word: string; strength: number }[] = [];
    for (const [word, { stemmed, related, idf }] of words) {
      const share = Math.max(stemMatch(stemmed, own, related), taught ? stemMatch(stemmed, taught, related) : 0);
      if (share > 0) strong.push({ word, strength: share * idf });
    }
    // a stable sort: equally strong words keep the request's order
    return strong
      .sort((a, b) => b.strength - a.strength)
      .slice(0, MAX_MATCHED_WORDS)
      .map((w) => w.word);
  };
}
