import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { IntentSchema, newPacket } from "@switchyard/packet";
import { findQuotes, maskQuotes, straightenQuotes } from "../src/quotes.js";
import { requestTexts } from "../src/request-texts.js";
import { plainWords, scanMessage } from "../src/scan-message.js";
import { fileKindOf, hasKnownExtension, tokenKind, trimToken } from "../src/tokens.js";
import { localToolName, lowerWords, splitWords, wordBefore } from "../src/words.js";

describe("request-text - quotes", () => {
  const QUOTES: [string, string[]][] = [
    [`write "hello, world" to a.md`, ["hello, world"]],
    ["run `npm test` now", ["npm test"]],
    ["say 'read the logs' twice", ["read the logs"]],
    ["don't touch Bob's file", []],
    ["write \u201chi\u201d and \u2018there\u2019", ["hi", "there"]],
    ["say 'hi \"you\"' now", [`hi "you"`]],
    ["run this:\n```\nls -la\n```", ["ls -la"]],
    [`an empty "" quote`, []],
  ];
  for (const [text, values] of QUOTES) {
    it(`request-text - quotes in ${JSON.stringify(text)}`, () => {
      assert.deepEqual(findQuotes(text).map((q) => q.value), values);
    });
  }

  it("request-text - a quote's offsets cover its marks, and its value keeps the text's own characters", () => {
    const [quote] = findQuotes("save \u201cit\u2019s\u201d to a.md");
    assert.deepEqual({ value: quote?.value, start: quote?.start, end: quote?.end, mark: quote?.mark }, { value: "it\u2019s", start: 5, end: 11, mark: '"' });
  });

  it("request-text - masking keeps the length and the quote marks", () => {
    const text = "write 'and then' to a.md, then ```x``` ok";
    const masked = maskQuotes(text, findQuotes(text));
    assert.equal(masked, "write '________' to a.md, then ```_``` ok");
    assert.equal(masked.length, text.length);
  });

  it("request-text - straight quotes keep offsets", () => {
    assert.equal(straightenQuotes("\u201ca\u201d \u2018b\u2019"), `"a" 'b'`);
  });
});

describe("request-text - tokens", () => {
  const KINDS: [string, string | undefined][] = [
    ["notes/todo.md", "path"],
    ["package.json", "path"],
    ["~/.bashrc", "path"],
    ["/tmp/data", "path"],
    ["archive/", "path"],
    ["C:\\Users\\me", "path"],
    ["https://example.com/a.txt", "url"],
    ["www.example.com", "url"],
    ["and/or", undefined],
    ["24/7", undefined],
    ["12/05/2024", undefined],
    ["km/h", undefined],
    ["e.g", undefined],
    ["node.js", undefined],
    ["react.js", undefined],
    ["hello", undefined],
    ["", undefined],
  ];
  for (const [token, kind] of KINDS) {
    it(`request-text - ${JSON.stringify(token)} is ${kind ?? "neither path nor link"}`, () => {
      assert.equal(tokenKind(token), kind);
    });
  }

  it("request-text - tokens lose the punctuation around them, not a directory's slash", () => {
    assert.deepEqual(trimToken("(notes/todo.md)."), { value: "notes/todo.md", offset: 1 });
    assert.deepEqual(trimToken("notes/"), { value: "notes/", offset: 0 });
  });

  it("request-text - extensions: known ones, and text or media", () => {
    assert.equal(hasKnownExtension("report.pdf"), true);
    assert.equal(hasKnownExtension("asp.net"), false);
    assert.equal(fileKindOf("notes/todo.md"), "text");
    assert.equal(fileKindOf("photo.PNG"), "media");
    assert.equal(fileKindOf("report.pdf"), "unknown");
    assert.equal(fileKindOf("notes"), "unknown");
  });
});

describe("request-text - scanMessage", () => {
  it("request-text - paths, globs, extensions and numbers, each where it stands", () => {
    const scan = scanMessage("search src/ for **/*.test.ts and all .md files, the first ten in 'docs'");
    assert.deepEqual(scan.paths.map((p) => [p.value, p.strong]), [["src/", true], ["docs", false]]);
    assert.deepEqual(scan.globs.map((g) => g.value), ["**/*.test.ts"]);
    assert.deepEqual(scan.extensions.map((e) => e.value), [".md"]);
    assert.deepEqual(scan.numbers.map((n) => n.number), [10]);
    assert.equal(scan.paths[0]?.before, "search");
  });

  it("request-text - a folder named by the words around it is a weak path", () => {
    assert.deepEqual(scanMessage("list the notes directory").paths.map((p) => [p.value, p.strong]), [["notes", false]]);
  });

  it("request-text - plain words leave out quotes, paths, globs and extensions", () => {
    assert.deepEqual(plainWords(scanMessage("Read save.txt and 'delete me', then *.md or .json")), ["read", "and", "then", "or"]);
  });

  it("request-text - a word that names a property of plain objects is no number", () => {
    assert.deepEqual(scanMessage("explain the constructor").numbers, []);
  });
});

describe("request-text - words", () => {
  it("request-text - the word before a span skips articles and 'file'", () => {
    assert.equal(wordBefore("write it to the file notes.md", 21), "to");
    assert.equal(wordBefore("notes.md", 0), "");
  });

  it("request-text - names split at camelCase, snake_case, kebab-case and dots", () => {
    assert.deepEqual(splitWords("list_directory_with-sizes.v2"), ["list", "directory", "with", "sizes", "v2"]);
    assert.deepEqual(splitWords("sortBy"), ["sort", "by"]);
    assert.equal(localToolName("filesystem.read_text_file"), "read_text_file");
    assert.equal(localToolName("read_text_file"), "read_text_file");
  });

  it("request-text - lower-case words keep inner apostrophes only", () => {
    assert.deepEqual(lowerWords("Don't 'Delete' it"), ["don't", "delete", "it"]);
  });
});

describe("request-text - requestTexts", () => {
  it("request-text - the current step first, then the query, then the original prompt, without repeats", () => {
    const packet = newPacket({ message: "  read a.md, then delete it " });
    packet.intent = create(IntentSchema, { steps: ["read a.md", "delete it"], stepIndex: 1, query: "read a.md\ndelete it" });
    assert.deepEqual(requestTexts(packet), ["delete it", "read a.md\ndelete it", "read a.md, then delete it"]);
    packet.intent = create(IntentSchema, { query: "read a.md, then delete it" });
    assert.deepEqual(requestTexts(packet), ["read a.md, then delete it"]);
  });
});
