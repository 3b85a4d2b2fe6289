/**
 * The spelling vocabulary a tool index keeps beside its tools (request-text's
 * SpellingVocabulary): the words of each tool's name, description, parameters and
 * shared examples, so that the router reads a misspelt request as the catalog's
 * words before it searches. Examples a tenant taught are left out: their words
 * must never show in another tenant's corrections.
 */
import type { ToolDefinition } from "@switchyard/packet";
import { SpellingVocabulary, STOPWORDS } from "@switchyard/request-text";
import { stem, toolText } from "./text.js";

/** An empty vocabulary that never reads a stop word again, nor a word sharing its stem with a catalog word. */
export function catalogVocabulary(): SpellingVocabulary {
  return new SpellingVocabulary({ known: (word) => STOPWORDS.has(word), stem });
}

/** Puts the tool's shared texts in the vocabulary, replacing what it had of the tool. */
export function learnSpelling(vocabulary: SpellingVocabulary, tool: ToolDefinition): void {
  vocabulary.set(tool.name, [toolText(tool)]);
}
