import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conceptsOf, relatedStems } from "../src/concepts.js";
import { stem } from "../src/text.js";

describe("concepts", () => {
  it("concepts - words of a group are related to each other, by stem", () => {
    assert.ok(relatedStems(stem("folder")).includes(stem("directory")));
    assert.ok(relatedStems(stem("directories")).includes(stem("folder")));
    assert.ok(relatedStems(stem("show")).includes(stem("list")));
    assert.ok(!relatedStems(stem("folder")).includes(stem("folder")));
  });

  it("concepts - a file extension implies its kind of file, not other extensions", () => {
    const md = relatedStems("md");
    assert.ok(md.includes(stem("file")) && md.includes(stem("text")));
    assert.ok(!md.includes("json"));
    assert.ok(relatedStems("png").includes(stem("image")));
    assert.deepEqual(relatedStems("json"), relatedStems("md"));
  });

  it("concepts - a word outside every group has no relatives and no concept", () => {
    assert.deepEqual(relatedStems(stem("zebra")), []);
    assert.deepEqual(conceptsOf(stem("zebra")), []);
  });

  it("concepts - words of one group share a concept", () => {
    const [folder] = conceptsOf(stem("folder"));
    assert.ok(folder !== undefined);
    assert.ok(conceptsOf(stem("directory")).includes(folder));
    assert.ok(conceptsOf(stem("picture")).some((c) => conceptsOf("png").includes(c)));
  });
});
