import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { benchDir, readBench } from "@switchyard/bench-data";
import { misspell, TYPO_DATASETS, typoLines, typoSet } from "../src/typo-set.js";

/** Whether `as` is `word` after one edit of the typo set's kinds: a swap of neighbours, a letter dropped, doubled or replaced. */
function oneEdit(word: string, as: string): boolean {
  if (as.length === word.length - 1) return [...word].some((_, i) => word.slice(0, i) + word.slice(i + 1) === as);
  if (as.length === word.length + 1) return [...word].some((c, i) => word.slice(0, i) + c + word.slice(i) === as);
  const differ = [...word].flatMap((c, i) => (c === as[i] ? [] : [i]));
  return differ.length === 1 || (differ.length === 2 && differ[1] === differ[0]! + 1 && word[differ[0]!] === as[differ[1]!] && word[differ[1]!] === as[differ[0]!]);
}

describe("typo set", () => {
  for (const name of TYPO_DATASETS) {
    it(`typo set - ${name}: the committed file is what the script makes from the queries`, () => {
      const dir = benchDir();
      const made = typoLines(typoSet(readBench(name, dir).cases));
      assert.equal(readFileSync(join(dir, `${name}.typos.jsonl`), "utf8"), made);
    });
  }

  it("typo set - the same seed gives the same typos, another seed others; a case's typos do not depend on the other cases", () => {
    const cases = readBench("apibank", benchDir()).cases;
    assert.deepEqual(typoSet(cases), typoSet(cases));
    assert.notDeepEqual(typoSet(cases, 1), typoSet(cases, 2));
    const last = cases.at(-1)!;
    assert.deepEqual(typoSet([last])[0], typoSet(cases).find((t) => t.id === last.id));
  });

  it("typo set - each typo is one edit of a content word after its first letter, and only the chosen words change", () => {
    for (const t of typoSet(readBench("metatool", benchDir()).cases).slice(0, 300)) {
      assert.ok(t.typos.length > 0, t.id);
      for (const { word, as } of t.typos) {
        assert.ok(oneEdit(word, as), `${word} → ${as}`);
        assert.equal(as[0], word[0], `${word} → ${as}`);
      }
    }
    const c = { id: "x-1", query: 'please "keep this quoted" and restart the checkout deployment' };
    const t = misspell(c)!;
    assert.ok(t.query.includes('"keep this quoted"'));
    assert.equal(t.query.split(" ").length, c.query.split(" ").length);
  });
});
