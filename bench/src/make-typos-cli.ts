// Writes the committed typo sets: bench/data/<dataset>.typos.jsonl for each shared dataset (typo-set.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchDir, readBench } from "@switchyard/bench-data";
import { TYPO_DATASETS, typoLines, typoSet } from "./typo-set.js";

const dir = benchDir();
for (const name of TYPO_DATASETS) {
  const cases = typoSet(readBench(name, dir).cases);
  writeFileSync(join(dir, `${name}.typos.jsonl`), typoLines(cases));
  process.stderr.write(`${name}: ${cases.length} misspelt queries\n`);
}
