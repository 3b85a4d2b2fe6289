import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { Turn_Role, TurnSchema } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { asksForAnother, buildQuery, isAnaphoric } from "../src/query.js";
import { isSmalltalk } from "../src/smalltalk.js";

const user = (content: string): Turn => create(TurnSchema, { role: Turn_Role.USER, content });
const assistant = (content: string): Turn => create(TurnSchema, { role: Turn_Role.ASSISTANT, content });

describe("query", () => {
  it("query - a step that says what it means is the query as it stands", () => {
    const history = [user("turn on the kitchen light"), assistant("Done.")];
    assert.deepEqual(buildQuery("  read notes/todo.md  ", history), { text: "read notes/todo.md", context: [] });
    assert.deepEqual(buildQuery("what time is it?", history), { text: "what time is it?", context: [] });
  });

  it("query - 'turn it off' gets the latest earlier user turn as its context, itself never repeated (seed 001)", () => {
    const history = [user("turn on the kitchen light"), assistant("The kitchen light is on.")];
    assert.deepEqual(buildQuery("turn it off", history), { text: "turn it off", context: ["turn on the kitchen light"] });
  });

  it("query - small talk and assistant turns in between are skipped", () => {
    const history = [
      user("open notes/todo.md"),
      assistant("Here it is."),
      user("thanks!"),
      assistant("You're welcome."),
    ];
    assert.deepEqual(buildQuery("read that file again", history), { text: "read that file again", context: ["open notes/todo.md"] });
  });

  it("query - maxTurns bounds the context: 3 spans two earlier user turns, oldest first; 1 none", () => {
    const history = [user("list the files in notes/"), user("open the second one"), assistant("ok")];
    assert.deepEqual(buildQuery("do it again", history, { maxTurns: 3 }), {
      text: "do it again",
      context: ["list the files in notes/", "open the second one"],
    });
    assert.deepEqual(buildQuery("do it again", history, { maxTurns: 1 }), { text: "do it again", context: [] });
  });

  it("query - no earlier user turn leaves the step alone", () => {
    assert.deepEqual(buildQuery("do it", []), { text: "do it", context: [] });
    assert.deepEqual(buildQuery("do it", [assistant("Shall I delete notes/old.md?")]), { text: "do it", context: [] });
  });

  it("query - a history that repeats the current prompt does not count it as context", () => {
    assert.deepEqual(buildQuery("turn it off", [user("turn on the fan"), user("turn it off")]), { text: "turn it off", context: ["turn on the fan"] });
  });

  it("query - a thank-you with words after it is still small talk, and is skipped", () => {
    const history = [user("turn on the fan"), assistant("Done."), user("thanks, that was quick!")];
    assert.deepEqual(buildQuery("turn it off", history), { text: "turn it off", context: ["turn on the fan"] });
  });

  const SMALLTALK: [string, boolean][] = [
    ["thanks!", true],
    ["thanks, that was helpful!", true],
    ["ok", true],
    ["hi there", true],
    ["thank you so much, great work", true],
    ["thanks! now delete notes/old.md", false],
    ["ok, read it again", false],
    ["hey, notes/todo.md please", false],
    ["read notes/a.md", false],
    ["that was helpful", false],
  ];
  for (const [turn, expected] of SMALLTALK) {
    it(`query - isSmalltalk(${JSON.stringify(turn)}) is ${expected}`, () => {
      assert.equal(isSmalltalk(turn), expected);
    });
  }

  const ANAPHORIC: [string, boolean][] = [
    ["turn it off", true],
    ["read that file again", true],
    ["do it", true],
    ["delete them", true],
    ["the other one", true],
    ["do the same for b.md", false],
    ["what time is it", false],
    ["it's broken", false],
    ["read notes/todo.md", false],
    ["open it from notes/a.md", false],
    ["please go through the whole repository and tell me what it does in detail", false],
    ["", false],
  ];
  for (const [step, expected] of ANAPHORIC) {
    it(`query - isAnaphoric(${JSON.stringify(step)}) is ${expected}`, () => {
      assert.equal(isAnaphoric(step), expected);
    });
  }
});

describe("query - a step that asks for another object than the earlier turns named", () => {
  const ANOTHER: [string, boolean][] = [
    ["and the other one?", true],
    ["now another file", true],
    ["the next one please", true],
    ["not that one", true],
    ["do it again", false],
    ["read it", false],
    ["read another report about the budget and the other notes from the meeting", false],
    ["open the other one from notes/b.md", false],
  ];
  for (const [step, expected] of ANOTHER) {
    it(`query - asksForAnother(${JSON.stringify(step)}) is ${expected}`, () => {
      assert.equal(asksForAnother(step), expected);
    });
  }
});
