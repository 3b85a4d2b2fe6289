import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { schemaOf } from "@switchyard/test-fixtures";
import type { Server } from "@switchyard/test-fixtures";
import { extractArguments } from "../src/extract-args.js";

interface Row {
  name: string;
  tool: `${Server}.${string}`;
  message: string;
  args: JsonObject;
  missing?: string[];
  unusedPaths?: string[];
}

// Every schema below is the real inputSchema its MCP server returns from tools/list.
const rows: Row[] = [
  // Paths
  { name: "a plain path", tool: "filesystem.read_text_file", message: "please read the file notes/todo.md", args: { path: "notes/todo.md" } },
  { name: "a bare file name with an extension", tool: "filesystem.read_text_file", message: "open package.json", args: { path: "package.json" } },
  { name: "sentence punctuation is not part of the path", tool: "filesystem.read_text_file", message: "Can you read notes/todo.md?", args: { path: "notes/todo.md" } },
  { name: "an absolute path", tool: "filesystem.list_directory", message: "list /tmp/data", args: { path: "/tmp/data" } },
  { name: "a home path", tool: "filesystem.read_text_file", message: "cat ~/.bashrc", args: { path: "~/.bashrc" } },
  { name: "a quoted path with a space", tool: "filesystem.read_text_file", message: "read 'my notes.txt'", args: { path: "my notes.txt" } },
  { name: "a backticked path", tool: "filesystem.read_text_file", message: "read `notes/todo.md`", args: { path: "notes/todo.md" } },
  { name: "a folder named by the words around it", tool: "filesystem.list_directory", message: "list the notes directory", args: { path: "notes" } },
  { name: "a folder after 'folder'", tool: "filesystem.list_directory", message: "what is in the folder src", args: { path: "src" } },
  { name: "a quoted folder after 'in'", tool: "filesystem.list_directory", message: 'show what is in "docs"', args: { path: "docs" } },
  { name: "a URL is not a path", tool: "filesystem.read_text_file", message: "read https://example.com/a.txt", args: {}, missing: ["path"] },
  { name: "e.g. is not a file name", tool: "filesystem.read_text_file", message: "read a file, e.g. the readme", args: {}, missing: ["path"] },
  { name: "and/or is not a path", tool: "filesystem.list_directory", message: "list files and/or folders", args: {}, missing: ["path"] },
  { name: "no path given", tool: "filesystem.read_text_file", message: "read the file", args: {}, missing: ["path"] },
  { name: "an array of paths", tool: "filesystem.read_multiple_files", message: "read a.txt, b.txt and docs/c.md", args: { paths: ["a.txt", "b.txt", "docs/c.md"] } },
  { name: "a single-path tool leaves extra paths unused", tool: "filesystem.read_text_file", message: "compare a.txt with b.txt", args: { path: "a.txt" }, unusedPaths: ["b.txt"] },
  // Source and destination
  { name: "move X to Y", tool: "filesystem.move_file", message: "move a.txt to archive/a.txt", args: { source: "a.txt", destination: "archive/a.txt" } },
  { name: "rename X as Y", tool: "filesystem.move_file", message: "rename draft.md as final.md", args: { source: "draft.md", destination: "final.md" } },
  { name: "destination named first", tool: "filesystem.move_file", message: "move to archive/ the file a.txt", args: { source: "a.txt", destination: "archive/" } },
  { name: "two paths without prepositions keep their order", tool: "filesystem.move_file", message: "mv old.txt new.txt", args: { source: "old.txt", destination: "new.txt" } },
  { name: "move with only one path", tool: "filesystem.move_file", message: "move notes.md somewhere", args: { source: "notes.md" }, missing: ["destination"] },
  // Content
  { name: "write X to Y", tool: "filesystem.write_file", message: "write hello world to notes/a.txt", args: { content: "hello world", path: "notes/a.txt" } },
  { name: "write X to Y with 'to' inside the content", tool: "filesystem.write_file", message: "write how to cook to notes/a.txt please", args: { content: "how to cook", path: "notes/a.txt" } },
  { name: "save quoted X in Y", tool: "filesystem.write_file", message: 'save "buy milk" in notes/todo.md', args: { content: "buy milk", path: "notes/todo.md" } },
  { name: "write a quoted X to a quoted Y", tool: "filesystem.write_file", message: "write 'hi there' to 'out/greeting.txt'", args: { content: "hi there", path: "out/greeting.txt" } },
  { name: "write to Y: X", tool: "filesystem.write_file", message: "write to notes/a.txt: hello there", args: { content: "hello there", path: "notes/a.txt" } },
  { name: "create Y with content X", tool: "filesystem.write_file", message: "create notes/a.txt with content hello world", args: { content: "hello world", path: "notes/a.txt" } },
  { name: "the text prefix is dropped", tool: "filesystem.write_file", message: "save the text: remember the milk to notes/todo.md", args: { content: "remember the milk", path: "notes/todo.md" } },
  { name: "a pronoun is not content", tool: "filesystem.write_file", message: "save it to notes/a.txt", args: { path: "notes/a.txt" }, missing: ["content"] },
  { name: "a quoted path is a path, not content", tool: "filesystem.write_file", message: 'write to "notes/a.txt"', args: { path: "notes/a.txt" }, missing: ["content"] },
  // Patterns and queries
  { name: "a quoted glob and a quoted folder", tool: "filesystem.search_files", message: 'search for "*.ts" in "src"', args: { pattern: "*.ts", path: "src" } },
  { name: "an unquoted glob", tool: "filesystem.search_files", message: "search src/ for **/*.test.ts", args: { path: "src/", pattern: "**/*.test.ts" } },
  { name: "a bare extension becomes a glob", tool: "filesystem.search_files", message: "find all .md files in notes", args: { pattern: "*.md", path: "notes" } },
  { name: "search for X", tool: "memory.search_nodes", message: "search my memory for Alice", args: { query: "Alice" } },
  { name: "a quoted query", tool: "memory.search_nodes", message: 'search nodes for "project x"', args: { query: "project x" } },
  { name: "what about X", tool: "memory.search_nodes", message: "what do you know about Bob?", args: { query: "Bob" } },
  { name: "no query", tool: "memory.search_nodes", message: "search the graph", args: {}, missing: ["query"] },
  { name: "quoted names for an array of names", tool: "memory.open_nodes", message: 'open the nodes "Alice" and "Bob"', args: { names: ["Alice", "Bob"] } },
  { name: "nested entities are never guessed", tool: "memory.create_entities", message: "remember that Alice works at Acme", args: {}, missing: ["entities"] },
  { name: "a quoted message", tool: "everything.echo", message: "echo 'hello, world'", args: { message: "hello, world" } },
  // Numbers
  { name: "first N lines is head", tool: "filesystem.read_text_file", message: "show me the first 10 lines of notes/todo.md.", args: { path: "notes/todo.md", head: 10 } },
  { name: "last N lines is tail", tool: "filesystem.read_text_file", message: "the last 5 lines of ~/logs/app.log", args: { path: "~/logs/app.log", tail: 5 } },
  { name: "head: N", tool: "filesystem.read_text_file", message: "read notes/todo.md head: 3", args: { path: "notes/todo.md", head: 3 } },
  { name: "a number word", tool: "filesystem.read_text_file", message: "read the first ten lines of a.md", args: { path: "a.md", head: 10 } },
  { name: "digits inside a path are not numbers", tool: "filesystem.read_text_file", message: "read logs/2024-05.md", args: { path: "logs/2024-05.md" } },
  { name: "a number within bounds", tool: "everything.get-resource-links", message: "get 5 resource links", args: { count: 5 } },
  { name: "a number above maximum is left out", tool: "everything.get-resource-links", message: "get 50 resource links", args: {} },
  { name: "numbers by their description words", tool: "everything.trigger-long-running-operation", message: "run a long operation for 30 seconds with 3 steps", args: { duration: 30, steps: 3 } },
  // Required numbers no word cues are taken in the order the request gives them, the schema's order.
  { name: "two uncued required numbers in order", tool: "everything.get-sum", message: "add 3 and 5", args: { a: 3, b: 5 } },
  // Enums and booleans
  { name: "an enum value with a space", tool: "everything.get-structured-content", message: "what is the weather in new york", args: { location: "New York" } },
  { name: "enum cued among two values", tool: "filesystem.list_directory_with_sizes", message: "list notes/ by name or size, sorted by size", args: { path: "notes/", sortBy: "size" } },
  { name: "enum word inside a longer word does not count", tool: "filesystem.list_directory_with_sizes", message: "list notes/ with sizes", args: { path: "notes/" } },
  { name: "an explicit boolean", tool: "everything.get-annotated-message", message: "an error message, include image: yes", args: { messageType: "error", includeImage: true } },
  { name: "a boolean asked for", tool: "filesystem.edit_file", message: "edit notes/a.md as a dry run", args: { path: "notes/a.md", dryRun: true }, missing: ["edits"] },
  { name: "a boolean negated", tool: "filesystem.edit_file", message: "edit notes/a.md without dry-run", args: { path: "notes/a.md", dryRun: false }, missing: ["edits"] },
  { name: "a boolean not mentioned stays unset", tool: "everything.get-annotated-message", message: "show a success message", args: { messageType: "success" } },
];

describe("selector - extractArguments", () => {
  for (const row of rows) {
    it(`selector - extracts ${row.name}`, () => {
      const [server, tool] = row.tool.split(".") as [Server, string];
      const result = extractArguments(row.message, schemaOf(server, tool));
      assert.deepEqual(result.args, row.args);
      assert.deepEqual(result.missing, row.missing ?? []);
      assert.deepEqual(result.filled.sort(), Object.keys(row.args).sort());
      if (row.unusedPaths) assert.deepEqual(result.unusedPaths, row.unusedPaths);
    });
  }

  it("selector - extraction table has 30+ cases", () => {
    assert.ok(rows.length >= 30, `only ${rows.length} rows`);
  });
});
