import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { fillMarked } from "../src/marked-blocks.js";
import { figureDocs, measureFigures, readFigures } from "../src/routing-figures.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("routing figures", () => {
  const figures = readFigures();

  for (const [file, blocks] of Object.entries(figureDocs(figures))) {
    it(`routing figures - ${file} shows the tables of bench/figures/routing.json (run \`pnpm run docs\`)`, () => {
      const text = readFileSync(join(ROOT, file), "utf8");
      // throws naming the marker when the document lost one
      assert.equal(text, fillMarked(text, blocks, file), `${file}: the generated tables are stale`);
    });
  }

  // The three evals take about a minute in one process on a 2-core machine (the tool-need
  // models trained for the first run serve the other two), so the whole file is checked.
  it("routing figures - bench/figures/routing.json is what the evals measure now (run `pnpm figures`)", async () => {
    const sink = { write: () => true };
    assert.deepEqual(await measureFigures(sink), figures);
  });

  it("routing figures - a block replaces what lies between its markers, and a missing marker is named", () => {
    const text = "intro\n<!-- t:begin -->\nold\n<!-- t:end -->\nrest\n";
    assert.equal(fillMarked(text, { t: "new" }, "doc.md"), "intro\n<!-- t:begin -->\nnew\n<!-- t:end -->\nrest\n");
    assert.throws(() => fillMarked("intro\n<!-- t:begin -->\n", { t: "new" }, "doc.md"), /doc\.md: no marker <!-- t:end -->/);
    assert.throws(() => fillMarked("<!-- t:end --><!-- t:begin -->", { t: "new" }, "doc.md"), /doc\.md: <!-- t:end --> comes before <!-- t:begin -->/);
    assert.throws(() => fillMarked(`${text}${text}`, { t: "new" }, "doc.md"), /doc\.md: 2 times the marker <!-- t:begin -->/);
  });
});
