/**
 * Typos in a request ("restrat the paymnet-api deploymnet"), read as the words of a
 * vocabulary they are one edit away from (Damerau-Levenshtein: a swap of two neighbouring
 * letters is one edit). The router keeps the vocabulary of its catalog (tool names,
 * descriptions, parameters, shared examples) and corrects a request before it searches; the
 * selector reads a candidate's request with the corrections that are words of that tool.
 *
 * Conservative: only plain words of letters are read again, never a value the user typed
 * (quotes, paths, links, e-mail addresses, numbers, identifiers with digits, dots, slashes or
 * underscores, a name capitalised inside a sentence), nor a word of three letters or fewer, a
 * word of the vocabulary, a word that shares its stem with one ("lights" beside "light"), a
 * known word (the caller's stop words, the verbs and number words this package reads), or an
 * English word (english-words.ts): "give" is no typo of "given".
 */
import { SymSpell } from "mnemonist";
import type { SpellingCorrection } from "@switchyard/packet";
import { isEnglishWord } from "./english-words.js";
import { isNumberWord, scanMessage } from "./scan-message.js";
import { trimToken } from "./tokens.js";
import { isToolVerb } from "./verbs.js";

/** A correction as the spelling module makes it: the word as written (lower-cased) and the vocabulary's word it is read as. */
export type Correction = Pick<SpellingCorrection, "written" | "read">;

/** A text as read with its corrections, and the corrections in the order written (each word once). */
export interface CorrectedText {
  text: string;
  corrections: Correction[];
}

export interface SpellingVocabularyOptions {
  /** Words never read as others, though the vocabulary lacks them (the router's stop words). */
  known?: (word: string) => boolean;
  /** A word's stem: a word that shares its stem with a vocabulary word is no typo. @default the word itself */
  stem?: (word: string) => string;
}

/** Words shorter than this are never corrected: at one edit, every short word is close to many others. */
const MIN_LENGTH = 4;
/** One edit: what a slip of the finger makes (swap, drop, double, neighbouring key). */
const MAX_DISTANCE = 1;

// A run of non-space characters: one raw token.
const RAW_TOKEN = /\S+/g;
// A token of letters, with dashes only between them ("paymnet-api"): digits, dots, slashes, "@", "_", "#" make it a value.
const LETTER_TOKEN = /^[A-Za-z]+(?:-[A-Za-z]+)*$/;
// A word's letters: all lower case, or one capital first ("Restrat"); "iPhone" and "NASA" are names.
const PLAIN_CASE = /^[A-Za-z][a-z]*$/;
// Where a sentence starts: nothing before, or sentence punctuation and spaces; a capital there is no name.
const SENTENCE_START = /(?:^|[.!?:;]\s*|\n\s*)$/;
// A word of vocabulary text: letters only.
const VOCABULARY_WORD = /[a-z]+/g;

/**
 * The words of a catalog, with how often each is said, for reading a request's typos as
 * them. Kept by source (a tool's name): a source set again replaces its words, a source
 * deleted takes them away. Lookups go through a symmetric-delete index (mnemonist's SymSpell).
 */
export class SpellingVocabulary {
  private readonly sources = new Map<string, Map<string, number>>();
  private readonly counts = new Map<string, number>();
  /** How many words of the vocabulary have each stem. */
  private readonly stems = new Map<string, number>();
  private readonly known: (word: string) => boolean;
  private readonly stem: (word: string) => string;
  /** Built on the first lookup, then grown word by word; words gone from the vocabulary stay in it until it is rebuilt. */
  private index: SymSpell | undefined;
  private indexed = 0;

  constructor(options: SpellingVocabularyOptions = {}) {
    this.known = options.known ?? (() => false);
    this.stem = options.stem ?? ((word) => word);
  }

  /** How many distinct words the vocabulary holds. */
  get size(): number {
    return this.counts.size;
  }

  /** Sets the words of one source (a tool) from its texts, replacing those it had. */
  set(source: string, texts: readonly string[]): void {
    this.delete(source);
    const own = new Map<string, number>();
    for (const text of texts) {
      for (const word of text.toLowerCase().match(VOCABULARY_WORD) ?? []) {
        if (word.length < MIN_LENGTH - 1 || this.isKnown(word)) continue;
        own.set(word, (own.get(word) ?? 0) + 1);
      }
    }
    this.sources.set(source, own);
    for (const [word, n] of own) {
      const before = this.counts.get(word) ?? 0;
      this.counts.set(word, before + n);
      if (before === 0) this.addWord(word);
    }
  }

  /** Takes a source's words away; false when it had none. */
  delete(source: string): boolean {
    const own = this.sources.get(source);
    if (!own) return false;
    this.sources.delete(source);
    for (const [word, n] of own) {
      const left = this.counts.get(word)! - n;
      if (left > 0) {
        this.counts.set(word, left);
        continue;
      }
      this.counts.delete(word);
      const stem = this.stem(word);
      const same = this.stems.get(stem)! - 1;
      if (same > 0) this.stems.set(stem, same);
      else this.stems.delete(stem);
    }
    return true;
  }

  /** `text` with each misspelt word read as the vocabulary's word (see the module comment), and the corrections made. */
  correct(text: string): CorrectedText {
    const corrections = new Map<string, string>();
    const read = rewrite(text, (word) => {
      const lower = word.toLowerCase();
      const found = corrections.get(lower) ?? this.lookup(lower);
      if (found !== undefined) corrections.set(lower, found);
      return found;
    });
    return { text: read, corrections: [...corrections].map(([written, read]) => ({ written, read })) };
  }

  /** The vocabulary's word a misspelt word is, if one is clearly it: the most frequent at the smallest distance, alone in its count. */
  private lookup(word: string): string | undefined {
    if (word.length < MIN_LENGTH || this.counts.has(word) || this.isKnown(word) || this.stems.has(this.stem(word)) || isEnglishWord(word)) return undefined;
    let best: string | undefined;
    let bestCount = 0;
    let tied = false;
    // SymSpell answers the words at the smallest distance only (verbosity 1)
    for (const { term } of this.symSpell().search(word)) {
      const count = this.counts.get(term) ?? 0;
      if (count === 0 || term === word) continue;
      if (count > bestCount) [best, bestCount, tied] = [term, count, false];
      else if (count === bestCount) tied = true;
    }
    return tied ? undefined : best;
  }

  private isKnown(word: string): boolean {
    return this.known(word) || isToolVerb(word) || isNumberWord(word);
  }

  private addWord(word: string): void {
    const stem = this.stem(word);
    this.stems.set(stem, (this.stems.get(stem) ?? 0) + 1);
    if (!this.index) return;
    this.index.add(word);
    this.indexed++;
  }

  /** The lookup index; rebuilt when the words gone from the vocabulary outnumber those in it. */
  private symSpell(): SymSpell {
    if (!this.index || this.indexed > 2 * this.counts.size) {
      this.index = new SymSpell({ maxDistance: MAX_DISTANCE, verbosity: 1 });
      for (const word of this.counts.keys()) this.index.add(word);
      this.indexed = this.counts.size;
    }
    return this.index;
  }
}

/**
 * `text` with the corrections applied wherever their word is written, except in values (as
 * `SpellingVocabulary.correct` reads them); `accept` picks the corrections that apply.
 */
export function withCorrections(text: string, corrections: readonly Correction[], accept: (correction: Correction) => boolean = () => true): string {
  const byWord = new Map(corrections.filter(accept).map((c) => [c.written, c.read]));
  if (byWord.size === 0) return text;
  return rewrite(text, (word) => byWord.get(word.toLowerCase()));
}

/**
 * `text` with each word that may be a typo replaced by what `read` returns for it (kept when
 * undefined), in the word's case: "Restrat" read as "restart" gives "Restart".
 */
function rewrite(text: string, read: (word: string) => string | undefined): string {
  const scan = scanMessage(text);
  const values = [...scan.paths, ...scan.globs, ...scan.extensions, ...scan.numbers];
  let out = "";
  let at = 0;
  for (const match of scan.unquoted.matchAll(RAW_TOKEN)) {
    const { value, offset } = trimToken(match[0]);
    const start = match.index + offset;
    if (!LETTER_TOKEN.test(value) || values.some((v) => v.start < start + value.length && v.end > start)) continue;
    const sentenceStart = SENTENCE_START.test(scan.unquoted.slice(0, start));
    let from = start;
    for (const [i, word] of value.split("-").entries()) {
      // a capital inside a sentence, or anywhere but a first letter, marks a name: the user's value
      const named = !PLAIN_CASE.test(word) || (word[0] !== word[0]!.toLowerCase() && !(sentenceStart && i === 0));
      const found = named ? undefined : read(word);
      if (found !== undefined) {
        out += text.slice(at, from) + (word[0] === word[0]!.toLowerCase() ? found : found[0]!.toUpperCase() + found.slice(1));
        at = from + word.length;
      }
      from += word.length + 1;
    }
  }
  return out + text.slice(at);
}
