import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { changesThings, requestActions, requestVerbs, toolActions, verbActions } from "../src/verbs.js";
import type { Action } from "../src/verbs.js";

describe("request-text - requestVerbs", () => {
  const rows: { text: string; changing: string[]; looking: string[] }[] = [
    { text: "delete notes/todo.md", changing: ["delete"], looking: [] },
    { text: "please read the file notes/todo.md", changing: [], looking: ["read"] },
    { text: "read save.txt", changing: [], looking: ["read"] },
    { text: "show me 'how to delete files'", changing: [], looking: ["show"] },
    { text: "write hello to notes/a.txt", changing: ["write"], looking: [] },
    { text: "read a.txt and then remove it", changing: ["remove"], looking: ["read"] },
    { text: "what changed in notes/todo.md?", changing: [], looking: [] },
    { text: "list the latest updates", changing: [], looking: ["list"] },
    { text: "run the tests", changing: ["run"], looking: [] },
    // A folder guessed from the words around it ("folder notes") does not swallow the verb in front of "folder".
    { text: "delete folder notes", changing: ["delete"], looking: [] },
  ];
  for (const row of rows) {
    it(`request-text - verbs of "${row.text}"`, () => {
      assert.deepEqual(requestVerbs(row.text), { changing: row.changing, looking: row.looking });
    });
  }
});

describe("request-text - verb vocabulary", () => {
  it("request-text - request verbs map to actions, show and view to read or list", () => {
    assert.deepEqual(verbActions("show"), ["read", "list"]);
    assert.deepEqual(verbActions("rm"), ["delete"]);
    assert.deepEqual(verbActions("showing"), []);
    assert.deepEqual([...requestActions(["please", "read", "then", "delete"])], ["read", "delete"]);
  });

  it("request-text - changing and looking actions split the vocabulary", () => {
    const changing: Action[] = ["write", "create", "edit", "move", "delete", "run"];
    const looking: Action[] = ["read", "list", "search"];
    assert.ok(changing.every(changesThings));
    assert.ok(!looking.some(changesThings));
  });

  const TOOL_NAMES: [string, Action[]][] = [
    ["filesystem.read_text_file", ["read"]],
    ["filesystem.directory_tree", ["list"]],
    ["memory.add_observations", ["create"]],
    ["tasks.deleteTask", ["delete"]],
    ["shell.run_command", ["run"]],
    ["app.get_settings", []],
  ];
  for (const [name, actions] of TOOL_NAMES) {
    it(`request-text - the name ${name} promises ${actions.join(", ") || "nothing"}`, () => {
      assert.deepEqual([...toolActions(name)], actions);
    });
  }

  it("request-text - words that are properties of plain objects are not verbs", () => {
    // "constructor" used to find Object.prototype.constructor in a plain-object table, and crash.
    assert.deepEqual(verbActions("constructor"), []);
    assert.deepEqual([...toolActions("app.constructor_info")], []);
    assert.deepEqual(requestVerbs("what does the constructor do"), { changing: [], looking: [] });
  });
});
