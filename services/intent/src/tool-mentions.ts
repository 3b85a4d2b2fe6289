import { localToolName, lowerWords, splitWords } from "@switchyard/request-text";

// Plural and singular meet: "entities"/"entity" are not bridged, "nodes"/"node" are.
function sameWord(a: string, b: string): boolean {
  return a === b || a === `${b}s` || b === `${a}s`;
}

/**
 * The catalog tool a message names, if any: every word of the tool's own name
 * appears in the message ("trigger the long running operation" names
 * everything.trigger-long-running-operation; "get the sum of 2 and 3" names
 * get-sum). One-word names ("echo") never count, being ordinary words in prose;
 * the longest name wins.
 */
export function mentionedTool(text: string, toolNames: Iterable<string>): string | undefined {
  const words = lowerWords(text);
  let best: string | undefined;
  let bestLength = 1;
  for (const name of toolNames) {
    const parts = splitWords(localToolName(name));
    if (parts.length <= bestLength) continue;
    if (parts.every((part) => words.some((word) => sameWord(word, part)))) {
      best = name;
      bestLength = parts.length;
    }
  }
  return best;
}
