/**
 * The router's spelling corrections (ToolRoutingState.spelling) as the selector reads them.
 * The router read each misspelt word as a word of the whole catalog for its search; the
 * selector reads a request with those that are words of a candidate's own name or schema
 * (property names, enum values), so "restrat the checkout deploymnet" names the verb of
 * restart_deployment and "set the mode to colo" fills the enum value "cool". The router
 * never corrects a value the user typed (a quote, path, address, number or name), so
 * neither does this.
 */
import { ownToolName } from "@switchyard/packet";
import type { RoutingCandidate, SpellingCorrection } from "@switchyard/packet";
import { splitWords, withCorrections } from "@switchyard/request-text";
import type { Correction } from "@switchyard/request-text";
import { propertiesOf } from "./extract-args.js";

/** The router's corrections whose word is a word of some candidate's name, property names or enum values. */
export function schemaCorrections(spelling: readonly SpellingCorrection[], candidates: readonly RoutingCandidate[]): Correction[] {
  if (spelling.length === 0) return [];
  const words = new Set<string>();
  for (const { tool } of candidates) {
    if (!tool) continue;
    for (const word of splitWords(ownToolName(tool))) words.add(word);
    for (const property of propertiesOf(tool.inputSchema ?? {})) {
      for (const word of splitWords(property.name)) words.add(word);
      if (property.kind.kind === "enum") for (const value of property.kind.values) for (const word of splitWords(value)) words.add(word);
    }
  }
  return spelling.filter((c) => words.has(c.read)).map(({ written, read }) => ({ written, read }));
}

/** The texts with the corrections applied (request-text's `withCorrections`). */
export function withSchemaSpelling(texts: readonly string[], corrections: readonly Correction[]): string[] {
  return corrections.length === 0 ? [...texts] : texts.map((text) => withCorrections(text, corrections));
}
