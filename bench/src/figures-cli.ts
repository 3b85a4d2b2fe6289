#!/usr/bin/env node
// `pnpm figures`: runs the routing evals the READMEs quote (routing-figures.ts), writes
// bench/figures/routing.json and the tables between the documents' markers. `--render-only`
// writes the tables from the committed file without measuring (`pnpm run docs` runs that).
import { parseArgs } from "node:util";
import { FIGURES_FILE, measureFigures, readFigures, writeFigureDocs, writeFigures } from "./routing-figures.js";

try {
  const { values } = parseArgs({ options: { "render-only": { type: "boolean", default: false } }, strict: true });
  if (values["render-only"]) writeFigureDocs(readFigures());
  else {
    const figures = await measureFigures(process.stderr);
    // the figures first: a document missing its markers loses no measurement (`pnpm run docs` writes the tables later)
    writeFigures(figures);
    process.stderr.write(`figures: ${FIGURES_FILE}\n`);
    writeFigureDocs(figures);
  }
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
