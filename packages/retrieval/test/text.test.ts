import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitWords } from "@switchyard/request-text";
import { stem, tokenize, toolFields, toolText } from "../src/text.js";
import { catalogTool as tool } from "@switchyard/test-fixtures";

describe("text", () => {
  const splits: [string, string[]][] = [
    ["read_text_file", ["read", "text", "file"]],
    ["filesystem.read_text_file", ["filesystem", "read", "text", "file"]],
    ["readTextFile", ["read", "text", "file"]],
    ["ReadTextFile", ["read", "text", "file"]],
    ["list-allowed-directories", ["list", "allowed", "directories"]],
    ["notes/todo.md", ["notes", "todo", "md"]],
    ["PDFExporter", ["pdf", "exporter"]],
    ["METARs, TAFs and URLs", ["metars", "tafs", "and", "urls"]],
    ["base64 content", ["base64", "content"]],
    ["  Hello,   World!  ", ["hello", "world"]],
    ["", []],
  ];
  for (const [input, words] of splits) {
    it(`text - splits ${JSON.stringify(input)}`, () => {
      assert.deepEqual(splitWords(input), words);
    });
  }

  const stems: [string, string][] = [
    ["reading", "read"],
    ["read", "read"],
    ["files", "file"],
    ["file", "file"],
    ["filing", "file"],
    ["directories", "directori"],
    ["directory", "directori"],
    ["todos", "todo"],
    ["todo", "todo"],
    ["listing", "list"],
    ["listed", "list"],
    ["writing", "write"],
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["hopping", "hop"],
    ["falling", "fall"],
    ["agreed", "agre"],
    ["things", "thing"],
    ["translation", "translat"],
    ["translator", "translat"],
    ["translate", "translat"],
    ["adjustment", "adjust"],
    ["news", "news"],
    ["is", "is"],
    ["mp3", "mp3"],
    ["café", "café"],
  ];
  for (const [word, expected] of stems) {
    it(`text - stems ${word} to ${expected}`, () => {
      assert.equal(stem(word), expected);
    });
  }

  it("text - a word and its inflections share a stem", () => {
    for (const group of [
      ["read", "reads", "reading"],
      ["file", "files", "filed", "filing"],
      ["directory", "directories"],
      ["create", "creates", "created", "creating"],
      ["search", "searches", "searched", "searching"],
    ]) {
      assert.equal(new Set(group.map(stem)).size, 1, group.join(", "));
    }
  });

  const tokens: [string, string[]][] = [
    ["please read the file notes/todo.md", ["read", "file", "note", "todo", "md"]],
    ["Could you list the files in notes?", ["list", "file", "note"]],
    ["read_text_file", ["read", "text", "file"]],
    ["I want to use the tool", []],
  ];
  for (const [input, expected] of tokens) {
    it(`text - tokenizes ${JSON.stringify(input)}`, () => {
      assert.deepEqual(tokenize(input), expected);
    });
  }

  it("text - a tool's text holds its name words, description, parameters and examples", () => {
    const t = tool({
      name: "calendar.createEvent",
      description: "Adds an event to the calendar.",
      inputSchema: {
        type: "object",
        properties: {
          startTime: { type: "string", description: "When it begins, ISO 8601" },
          attendees: {
            type: "array",
            items: { type: "object", properties: { emailAddress: { type: "string", title: "Guest mail" } } },
          },
          visibility: { type: "string", enum: ["public", "private"] },
        },
      },
      examples: ["book a meeting with Ana at 3pm", " "],
    });
    const fields = toolFields(t);
    assert.equal(fields.name, "calendar create event");
    assert.equal(fields.description, "Adds an event to the calendar.");
    assert.deepEqual(fields.examples, ["book a meeting with Ana at 3pm"]);
    for (const part of ["start time", "When it begins", "attendees", "email address", "Guest mail", "public", "private"]) {
      assert.ok(fields.parameters.includes(part), `parameters lack ${part}: ${fields.parameters}`);
    }
    const text = toolText(t);
    for (const part of ["calendar create event", "Adds an event", "start time", "book a meeting"]) {
      assert.ok(text.includes(part), `text lacks ${part}`);
    }
  });

  it("text - a tool without schema or examples is its name and description", () => {
    assert.equal(toolText(tool({ name: "get_time", description: "Current time." })), "get time\nCurrent time.");
  });
});
