import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { viewsOf } from "../src/text-views.js";

describe("text views", () => {
  it("lower-cases ASCII and other scripts alike, keeping every offset", () => {
    assert.equal(viewsOf("Read NOTES/Todo.md").lower, "read notes/todo.md");
    assert.equal(viewsOf("Öffne ÜBER.txt").lower, "öffne über.txt");
  });

  it("leaves a character whose lower case is longer as it is, so the views stay the same length", () => {
    const text = "İstanbul'DA ne VAR";
    const { lower, masked } = viewsOf(text);
    assert.equal(lower, "İstanbul'da ne var");
    assert.equal(lower.length, text.length);
    assert.equal(masked.length, text.length);
  });
});
