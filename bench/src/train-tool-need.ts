#!/usr/bin/env node
// `pnpm train`: trains the router's tool-need model on the shared benchmark splits and writes it where
// @switchyard/retrieval ships it (bench/README.md, "The no-tool answer").
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sharedTrainingCorpora, trainOn } from "./tool-need-training.js";

/** packages/retrieval/models/tool-need.json, from bench/dist/ or bench/src/. */
const DEFAULT_OUT = fileURLToPath(new URL("../../packages/retrieval/models/tool-need.json", import.meta.url));

const { values } = parseArgs({ options: { out: { type: "string" } }, strict: true });
const out = values.out !== undefined ? resolve(values.out) : DEFAULT_OUT;
const started = performance.now();
const corpora = await sharedTrainingCorpora();
if (corpora.length === 0) throw new Error("no training benchmark found in the bench folder");
const model = trainOn(corpora);
const json = model.toJSON();
mkdirSync(dirname(out), { recursive: true });
const text = `${JSON.stringify(json)}\n`;
writeFileSync(out, text);
const examples = corpora.map((c) => `${c.name} ${c.examples.filter((e) => e !== undefined).length}`).join(", ");
process.stderr.write(
  `tool-need model: ${Object.keys(json.weights).length} weights, ` +
    `${(text.length / 1024).toFixed(0)} KiB, trained on ${examples} examples in ${((performance.now() - started) / 1000).toFixed(1)} s → ${out}\n`,
);
