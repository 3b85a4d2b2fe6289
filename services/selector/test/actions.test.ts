import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { requestThings, thingsSaid } from "../src/actions.js";

describe("selector - what a request speaks of", () => {
  it("selector - function words and tool verbs are not things; quoted values and paths are not either", () => {
    assert.deepEqual(requestThings("what's on my to-do list?"), []);
    assert.deepEqual(requestThings("which directories can you access?"), ["directories", "access"]);
    assert.deepEqual(requestThings('search my notes/todo.md for "milk" in the garden'), ["garden"]);
  });

  it("selector - the share of the things a tool's name or description says, word forms compared", () => {
    const description = "Returns the list of directories that this server is allowed to access.";
    assert.equal(thingsSaid(["directories", "access"], "list_allowed_directories", description), 1);
    assert.equal(thingsSaid(["directory", "weather"], "list_allowed_directories", description), 0.5);
    assert.equal(thingsSaid([], "list_allowed_directories", description), 0);
  });
});
