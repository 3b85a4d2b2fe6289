import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { splitSteps } from "../src/steps.js";

/** [request, its steps]. */
const CASES: [string, string[]][] = [
  // Sequencing words split.
  ["read notes/a.md, then delete it", ["read notes/a.md", "delete it"]],
  ["read a.md and then summarize it", ["read a.md", "summarize it"]],
  ["read a.md; then write b.md", ["read a.md", "write b.md"]],
  ["read a.md then write b.md", ["read a.md", "write b.md"]],
  ["read a.md, after that delete it", ["read a.md", "delete it"]],
  ["read a.md. Afterwards, delete it.", ["read a.md", "delete it"]],
  ["read a.md afterwards delete it", ["read a.md", "delete it"]],
  ["read a.md. Next, delete it.", ["read a.md", "delete it"]],
  ["open the file, once that's done, delete it", ["open the file", "delete it"]],
  ["First read a.md, then list notes/, and finally delete b.md", ["read a.md", "list notes/", "delete b.md"]],
  ["read a.md, then if it is empty delete it", ["read a.md", "if it is empty delete it"]],
  // A step that is only a path borrows the previous step's verb.
  ["read a.md, then b.md, then c.md", ["read a.md", "read b.md", "read c.md"]],
  // Lists.
  ["1. read a.md 2. write b.md 3. delete c.md", ["read a.md", "write b.md", "delete c.md"]],
  ["Please do the following:\n1. read a.md\n2. delete it", ["read a.md", "delete it"]],
  ["1) list files 2) read a.md", ["list files", "read a.md"]],
  ["- read a.md\n- delete b.md", ["read a.md", "delete b.md"]],
  ["1. read a.md, then delete it\n2. list notes/", ["read a.md", "delete it", "list notes/"]],
  // One action stays one step.
  ["read a.md and b.md", ["read a.md and b.md"]],
  ["read a.md and delete b.md", ["read a.md and delete b.md"]],
  ["read a.md", ["read a.md"]],
  ["read a.md and delete it afterwards", ["read a.md and delete it afterwards"]],
  ["read a.md then", ["read a.md then"]],
  ["put it next to b.md", ["put it next to b.md"]],
  ["if notes/a.md exists then delete it", ["if notes/a.md exists then delete it"]],
  ["every now and then I read notes/a.md", ["every now and then I read notes/a.md"]],
  ["write 'and then there were none' to a.md", ["write 'and then there were none' to a.md"]],
  ["I have 2. Then what?", ["I have 2", "what?"]],
  // "back then" is time, the later ", then" is a sequence.
  ["back then we used svn, then read a.md", ["back then we used svn", "read a.md"]],
  ["", []],
  ["  \n ", []],
];

describe("steps", () => {
  for (const [request, steps] of CASES) {
    it(`steps - ${JSON.stringify(request)} → ${steps.length}`, () => {
      assert.deepEqual(splitSteps(request), steps);
    });
  }

  it("steps - keep the request's own case and quotes", () => {
    assert.deepEqual(splitSteps('Write "Hello, Then" to Notes/A.md, then Read it'), ['Write "Hello, Then" to Notes/A.md', "Read it"]);
  });
});
