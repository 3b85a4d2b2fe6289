import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { Turn_Role, TurnSchema } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { otherObject } from "../src/other-object.js";

const turn = (role: Turn_Role, content: string): Turn => create(TurnSchema, { role, content });
const user = (content: string) => turn(Turn_Role.USER, content);
const assistant = (content: string) => turn(Turn_Role.ASSISTANT, content);
const tool = (content: string) => turn(Turn_Role.TOOL, content);

describe("other-object", () => {
  const listed = [user("list the notes folder"), tool("[FILE] todo.md\n[FILE] ideas.md\n[DIR] archive"), user("read notes/todo.md"), assistant("- buy milk")];

  it("other-object - the one listed file the user did not name, in the folder of the one they did", () => {
    assert.equal(otherObject("and the other one?", listed), "notes/ideas.md");
  });

  it("other-object - a listing of full paths gives the path as listed", () => {
    const history = [user("read notes/todo.md"), assistant("I see notes/todo.md and notes/ideas.md; here is notes/todo.md: - buy milk")];
    assert.equal(otherObject("the other one", history), "notes/ideas.md");
  });

  it("other-object - nothing is guessed: no listing, several other files, or a step that asks for nothing else", () => {
    assert.equal(otherObject("and the other one?", [user("read notes/todo.md"), assistant("- buy milk")]), undefined);
    const three = [user("list notes"), tool("todo.md ideas.md plan.md"), user("read notes/todo.md")];
    assert.equal(otherObject("and the other one?", three), undefined, "ideas.md or plan.md");
    assert.equal(otherObject("read it again", listed), undefined);
    assert.equal(otherObject("read notes/plan.md instead of the other one", listed), undefined, "a step naming its own path");
  });

  it("other-object - only the latest turns count", () => {
    const old = [user("list src"), tool("a.ts b.ts"), user("read src/a.ts"), ...Array.from({ length: 6 }, (_, i) => user(`thanks ${i}`))];
    assert.equal(otherObject("and the other one?", old), undefined);
  });
});
