import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { checkArguments } from "../src/check-args.js";
import { requestVerbs } from "../src/request-verbs.js";
import { schemaOf } from "./support/tools.js";

describe("reviewer - checkArguments", () => {
  const rows: { name: string; schema: JsonObject; params: JsonObject; problems: string[] }[] = [
    { name: "complete", schema: schemaOf("filesystem", "read_text_file"), params: { path: "a.md" }, problems: [] },
    { name: "missing required", schema: schemaOf("filesystem", "write_file"), params: { path: "a.md" }, problems: ["content is required"] },
    { name: "null is missing", schema: schemaOf("filesystem", "read_text_file"), params: { path: null }, problems: ["path is required", "path must be string"] },
    { name: "wrong type", schema: schemaOf("filesystem", "read_text_file"), params: { path: "a", head: "3" }, problems: ["head must be number"] },
    { name: "integer-ness is not required of number", schema: schemaOf("filesystem", "read_text_file"), params: { path: "a", head: 2.5 }, problems: [] },
    { name: "enum", schema: schemaOf("filesystem", "list_directory_with_sizes"), params: { path: "a", sortBy: "date" }, problems: ['sortBy must be one of "name", "size"'] },
    { name: "bounds", schema: schemaOf("everything", "get-resource-links"), params: { count: 0 }, problems: ["count must be >= 1"] },
    { name: "minItems", schema: schemaOf("filesystem", "read_multiple_files"), params: { paths: [] }, problems: ["paths must have at least 1 items"] },
    { name: "no schema properties", schema: {}, params: { anything: 1 }, problems: [] },
  ];
  for (const row of rows) {
    it(`reviewer - checks arguments: ${row.name}`, () => {
      assert.deepEqual(checkArguments(row.schema, row.params).map((p) => `${p.field} ${p.message}`), row.problems);
    });
  }
});

describe("reviewer - requestVerbs", () => {
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
  ];
  for (const row of rows) {
    it(`reviewer - verbs of "${row.text}"`, () => {
      assert.deepEqual(requestVerbs(row.text), { changing: row.changing, looking: row.looking });
    });
  }
});
