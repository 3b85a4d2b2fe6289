/**
 * The language a message is written in, when it is not English: the offline router's
 * embedder and rules read English only, so such a message must reach a model (or be told
 * why not) rather than be judged on words the router cannot read. Detection is eld's
 * (Efficient Language Detector, n-gram profiles; its small database, about 60 languages),
 * on the message without links, paths and quoted stretches, which are not prose.
 */
import { eld } from "eld/small";

// Links, paths and file names, and quoted stretches: names and data, not the language of the request.
const NOT_PROSE = /\bhttps?:\/\/\S+|\S*[/\\]\S*|\b[\w-]+\.[a-z0-9]{1,5}\b|"[^"]*"|“[^”]*”/gi;
/** Shorter than this (letters, or words), a message says too little to tell its language reliably. */
const MIN_LETTERS = 12;
const MIN_WORDS = 3;
// A command line or code, not prose in any language: "echo hello world", "ls -la", "x = f(y)".
const CODE_LIKE =
  /^\s*(?:echo|ls|cat|grep|git|npm|pnpm|npx|yarn|node|python3?|pip|docker|kubectl|helm|curl|wget|cd|mkdir|rm|mv|cp|touch|sudo|ssh|scp|tail|head|chmod|chown|find|sed|awk|tar|make|go|cargo|java|psql|mysql|redis-cli|nats)\b|[{};=$|<>`\\]|(?:^|\s)--?[a-z]/i;
const NAMES = new Intl.DisplayNames(["en"], { type: "language" });

/**
 * The English name of the message's language ("Spanish") when it is reliably not English;
 * undefined otherwise, and for text too short or too code-like for the detector to be
 * reliable ("echo hello world" is not Norwegian).
 */
export function foreignLanguage(text: string): string | undefined {
  if (CODE_LIKE.test(text)) return undefined;
  const prose = text.replace(NOT_PROSE, " ");
  if ((prose.match(/\p{L}/gu) ?? []).length < MIN_LETTERS || (prose.match(/\p{L}+/gu) ?? []).length < MIN_WORDS) return undefined;
  const result = eld.detect(prose);
  if (!result.language || result.language === "en" || !result.isReliable()) return undefined;
  return NAMES.of(result.language) ?? result.language;
}
