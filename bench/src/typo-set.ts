/**
 * Misspelt copies of the shared queries, for measuring the router's spelling correction
 * (`pnpm eval --typos`): in each query that expects a tool, a seeded choice of its content
 * words (plain lower-case words of four letters or more, not stop words, outside quotes)
 * each misspelt by one edit of the kinds fingers make: two neighbouring letters swapped, a
 * letter dropped, a letter doubled, a letter replaced by a neighbouring key. The first letter
 * is kept, as it mostly is in real typos. The choice depends only on the seed and the case's
 * id, so a case keeps its typos whatever else the file holds.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { benchDir } from "@switchyard/bench-data";
import type { BenchCase } from "@switchyard/bench-data";
import { scanMessage, STOPWORDS, trimToken } from "@switchyard/request-text";
import { mulberry32 } from "@switchyard/retrieval";

export type TypoKind = "swap" | "drop" | "double" | "neighbour";

/** One misspelt query: the case's id, the query as misspelt, and each word's typo. */
export interface TypoCase {
  id: string;
  query: string;
  typos: { word: string; as: string; kind: TypoKind }[];
}

/** The shared datasets whose typo sets are committed. */
export const TYPO_DATASETS = ["metatool", "bfcl", "apibank"] as const;

/** The seed of the committed typo sets (bench/data/<dataset>.typos.jsonl). */
export const DEFAULT_TYPO_SEED = 20250637;

/** The share of a query's content words misspelt; at least one is, in every query that has one. */
const TYPO_RATE = 0.3;

const KINDS: readonly TypoKind[] = ["swap", "drop", "double", "neighbour"];

/** Keys beside each letter on a QWERTY keyboard, in its row and the rows above and below. */
const NEIGHBOURS: Readonly<Record<string, string>> = {
  q: "wa", w: "qeas", e: "wrsd", r: "etdf", t: "ryfg", y: "tugh", u: "yihj", i: "uojk", o: "ipkl", p: "ol",
  a: "qwsz", s: "awedxz", d: "serfcx", f: "drtgvc", g: "ftyhbv", h: "gyujnb", j: "huikmn", k: "jiolm", l: "kop",
  z: "asx", x: "zsdc", c: "xdfv", v: "cfgb", b: "vghn", n: "bhjm", m: "njk",
};

// A content word: lower-case letters only, four or more.
const CONTENT_WORD = /^[a-z]{4,}$/;
// A run of non-space characters: one raw token.
const RAW_TOKEN = /\S+/g;

/** The misspelt copies of the cases that expect a tool and have a content word, in the cases' order. */
export function typoSet(cases: readonly Pick<BenchCase, "id" | "query" | "expected">[], seed = DEFAULT_TYPO_SEED): TypoCase[] {
  return cases.filter((c) => c.expected.length > 0).flatMap((c) => misspell(c, seed) ?? []);
}

/** One case misspelt (see the module comment); undefined when it has no content word. */
export function misspell(c: Pick<BenchCase, "id" | "query">, seed = DEFAULT_TYPO_SEED): TypoCase | undefined {
  const words = contentWords(c.query);
  if (words.length === 0) return undefined;
  const random = mulberry32(caseSeed(c.id, seed));
  const chosen = words.filter(() => random() < TYPO_RATE);
  if (chosen.length === 0) chosen.push(words[Math.floor(random() * words.length)]!);
  let query = "";
  let at = 0;
  const typos: TypoCase["typos"] = [];
  for (const w of chosen) {
    const kind = KINDS[Math.floor(random() * KINDS.length)]!;
    const as = typo(w.word, kind, random);
    query += c.query.slice(at, w.start) + as;
    at = w.start + w.word.length;
    typos.push({ word: w.word, as, kind });
  }
  return { id: c.id, query: query + c.query.slice(at), typos };
}

/** The query's content words with where each starts, outside quotes. */
function contentWords(query: string): { word: string; start: number }[] {
  const found: { word: string; start: number }[] = [];
  for (const match of scanMessage(query).unquoted.matchAll(RAW_TOKEN)) {
    const { value, offset } = trimToken(match[0]);
    if (CONTENT_WORD.test(value) && !STOPWORDS.has(value)) found.push({ word: value, start: match.index + offset });
  }
  return found;
}

/** `word` with one typo of `kind` after its first letter; a swap of two equal letters, which changes nothing, drops one instead. */
function typo(word: string, kind: TypoKind, random: () => number): string {
  // a position after the first letter: 1 … length - 1
  const at = 1 + Math.floor(random() * (word.length - 1));
  const letter = word[at]!;
  switch (kind) {
    case "swap": {
      // swaps the letter with the one before it, unless that is the first: then with the one after
      const i = at > 1 ? at - 1 : at;
      if (word[i] === word[i + 1]) return word.slice(0, at) + word.slice(at + 1);
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    }
    case "drop":
      return word.slice(0, at) + word.slice(at + 1);
    case "double":
      return word.slice(0, at) + letter + word.slice(at);
    case "neighbour": {
      const keys = NEIGHBOURS[letter] ?? "e";
      return word.slice(0, at) + keys[Math.floor(random() * keys.length)] + word.slice(at + 1);
    }
  }
}

/** A case's own seed: the typo set's seed mixed with a hash of the case's id. */
function caseSeed(id: string, seed: number): number {
  return (createHash("sha256").update(id).digest().readUInt32LE(0) ^ seed) >>> 0;
}

/** The typo set as JSON Lines, one case a line (the committed file's form). */
export function typoLines(cases: readonly TypoCase[]): string {
  return cases.map((c) => `${JSON.stringify(c)}\n`).join("");
}

/** A dataset's committed typo set (`<name>.typos.jsonl` in the bench folder); throws naming the file when there is none. */
export function readTypoSet(name: string, dir = benchDir()): TypoCase[] {
  const file = join(dir, `${name}.typos.jsonl`);
  if (!existsSync(file)) throw new Error(`no typo set for ${name}: ${file} (node bench/dist/make-typos-cli.js, after pnpm build, writes those of the shared datasets)`);
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as TypoCase);
}
