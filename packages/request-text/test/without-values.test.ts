import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withoutValues } from "../src/without-values.js";

describe("request-text - without values", () => {
  const CASES: [string, string][] = [
    // issue 37: the README's example and the requests it took over share only the file
    ["how big is notes/todo.md?", "how big is ?"],
    ["delete notes/todo.md", "delete"],
    ["list the files in notes", "list the files in"],
    ["Schedule 'Design review' Thursday at 15:00 with sam@acme.io", "Schedule Thursday at 15:00 with"],
    ["open https://example.com/a?b=1 please", "open please"],
    ["show the first ten lines of *.md files", "show the first ten lines of files"],
    ["read \"my notes.txt\" now", "read now"],
    ["what's on my to-do list?", "what's on my to-do list?"],
  ];
  for (const [text, expected] of CASES) {
    it(`without values - ${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(withoutValues(text), expected);
    });
  }
});
