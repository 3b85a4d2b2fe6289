import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

// The committed benchmark data (bench/data/README.md documents every file and field).
const dataDir = new URL("../data/", import.meta.url);
const datasets = ["metatool", "bfcl", "apibank"] as const;
type Dataset = (typeof datasets)[number];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Row = Record<string, Json>;

function read(name: string): string {
  return readFileSync(new URL(name, dataDir), "utf8");
}

function rows(name: string): Row[] {
  const text = read(name);
  assert.ok(text.endsWith("\n"), `${name} ends with a newline`);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line, i) => {
      assert.ok(line.trim().length > 0, `${name}:${i + 1} is blank`);
      const row: unknown = JSON.parse(line);
      assert.ok(isObject(row), `${name}:${i + 1} is a JSON object`);
      return row;
    });
}

function isObject(x: unknown): x is Row {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function isStringArray(x: unknown): x is string[] {
  return Array.isArray(x) && x.every((s) => typeof s === "string");
}

/** Plain code-point order, as the files are sorted (not localeCompare). */
function isSorted(keys: string[]): boolean {
  return keys.every((k, i) => i === 0 || keys[i - 1]! < k);
}

// Fields each queries file may have, beyond id/query/expected (README "Format").
const optionalFields: Record<Dataset, string[]> = {
  metatool: ["kind"],
  bfcl: ["args", "category", "candidates", "args_accept"],
  apibank: ["args", "context_args", "source"],
};
const requiredFields: Record<Dataset, string[]> = {
  metatool: ["id", "query", "expected", "kind"],
  bfcl: ["id", "query", "expected", "category", "candidates"],
  apibank: ["id", "query", "expected", "source"],
};

describe("bench data files", () => {
  it("bench data files - SHA256SUMS lists the nine files and each matches", () => {
    const sums = new Map(
      read("SHA256SUMS")
        .trim()
        .split("\n")
        .map((line) => {
          const [digest, file] = line.split(/\s+\*?/);
          return [file!, digest!] as const;
        }),
    );
    // livemcp and livemcp-zero are checked in livemcp-data.test.ts
    const files = [...datasets.flatMap((d) => [`${d}.tools.jsonl`, `${d}.queries.jsonl`]), "livemcp.tools.jsonl", "livemcp.queries.jsonl", "livemcp-zero.tools.jsonl"];
    assert.deepEqual([...sums.keys()].sort(), [...files].sort());
    for (const file of files) {
      const digest = createHash("sha256").update(readFileSync(new URL(file, dataDir))).digest("hex");
      assert.equal(digest, sums.get(file), `${file} matches SHA256SUMS`);
    }
  });

  for (const dataset of datasets) {
    it(`bench data files - ${dataset}: tools have a unique name, a description and a JSON Schema`, () => {
      const tools = rows(`${dataset}.tools.jsonl`);
      assert.ok(tools.length > 0);
      const names = new Set<string>();
      for (const tool of tools) {
        assert.deepEqual(Object.keys(tool), ["name", "description", "inputSchema"]);
        assert.ok(typeof tool["name"] === "string" && tool["name"].length > 0);
        assert.ok(!names.has(tool["name"]), `${tool["name"]} is unique`);
        names.add(tool["name"]);
        assert.equal(typeof tool["description"], "string", tool["name"]);
        const schema = tool["inputSchema"];
        assert.ok(isObject(schema), tool["name"]);
        if (Object.keys(schema).length > 0) {
          assert.equal(schema["type"], "object", tool["name"]);
          assert.ok(isObject(schema["properties"]), tool["name"]);
          if ("required" in schema) {
            const required = schema["required"];
            assert.ok(isStringArray(required), tool["name"]);
          }
        }
      }
      // API-Bank keeps source file order; the others are sorted by name
      if (dataset !== "apibank") assert.ok(isSorted([...names]), `${dataset} tools are sorted by name`);
    });

    it(`bench data files - ${dataset}: queries have the documented fields and name existing tools`, () => {
      const tools = new Map(rows(`${dataset}.tools.jsonl`).map((t) => [t["name"] as string, t]));
      const queries = rows(`${dataset}.queries.jsonl`);
      const ids: string[] = [];
      for (const q of queries) {
        const id = q["id"];
        assert.ok(typeof id === "string" && id.startsWith(`${dataset}-`), `${String(id)}`);
        ids.push(id);
        for (const field of requiredFields[dataset]) assert.ok(field in q, `${id} has ${field}`);
        for (const field of Object.keys(q)) {
          assert.ok(["id", "query", "expected", ...optionalFields[dataset]].includes(field), `${id}: unexpected field ${field}`);
        }
        assert.ok(typeof q["query"] === "string" && q["query"].trim().length > 0, `${id} has a query`);
        const expected = q["expected"];
        assert.ok(isStringArray(expected), `${id}: expected is a list of names`);
        assert.equal(new Set(expected).size, expected.length, `${id}: expected has no repeats`);
        for (const name of expected) assert.ok(tools.has(name), `${id}: expected tool ${name} is in the tools file`);
        if ("args" in q) {
          assert.ok(isObject(q["args"]), `${id}: args is an object`);
          assert.ok(expected.length > 0, `${id}: args belong to expected[0]`);
        }
        checkDatasetFields(dataset, q, id, expected, tools);
      }
      assert.equal(new Set(ids).size, ids.length, "ids are unique");
      assert.ok(isSorted(ids), "queries are sorted by id");
    });
  }

  it("bench data files - split.json lists exactly the ids of each queries file", () => {
    const split: unknown = JSON.parse(read("split.json"));
    assert.ok(isObject(split));
    for (const dataset of datasets) {
      const ids = rows(`${dataset}.queries.jsonl`).map((q) => q["id"]);
      assert.deepEqual(split[dataset], ids, dataset);
    }
    const kept = split["bfcl_kept_definitions"];
    assert.ok(isObject(kept));
    const bfclTools = new Set(rows("bfcl.tools.jsonl").map((t) => t["name"]));
    for (const [name, caseId] of Object.entries(kept)) {
      assert.ok(bfclTools.has(name), `kept definition of ${name} is a tool`);
      assert.equal(typeof caseId, "string", name);
    }
  });
});

function checkDatasetFields(dataset: Dataset, q: Row, id: string, expected: string[], tools: Map<string, Row>): void {
  if (dataset === "metatool") {
    const kind = q["kind"];
    assert.ok(kind === "single" || kind === "multi" || kind === "no_tool", `${id}: kind ${String(kind)}`);
    const size = { single: 1, multi: 2, no_tool: 0 }[kind];
    assert.equal(expected.length, size, `${id}: a ${kind} case expects ${size} tool(s)`);
    assert.ok(id.startsWith(`metatool-${kind === "no_tool" ? "none" : kind}-`), `${id} matches its kind`);
  } else if (dataset === "bfcl") {
    assert.equal(typeof q["category"], "string", id);
    const candidates = q["candidates"];
    assert.ok(isStringArray(candidates), `${id}: candidates`);
    // three live_irrelevance cases offer no function at all
    if (candidates.length === 0) assert.deepEqual(expected, [], `${id}: nothing offered, nothing expected`);
    for (const name of candidates) assert.ok(tools.has(name), `${id}: candidate ${name} is in the tools file`);
    for (const name of expected) assert.ok(candidates.includes(name), `${id}: expected ${name} is a candidate`);
    assert.equal("args" in q, "args_accept" in q, `${id}: args and args_accept come together`);
    if ("args_accept" in q) {
      const accept = q["args_accept"];
      assert.ok(isObject(accept), id);
      for (const values of Object.values(accept)) assert.ok(Array.isArray(values), `${id}: accepted values are lists`);
      for (const arg of Object.keys(q["args"] as Row)) assert.ok(arg in accept, `${id}: ${arg} is in args_accept`);
    }
  } else {
    const source = q["source"];
    assert.ok(typeof source === "string" && /^level-[12]-[a-z-]+\/.+\.jsonl$/.test(source), `${id}: source ${String(source)}`);
    assert.ok(id.endsWith(source.slice(source.indexOf("/") + 1, -".jsonl".length)), `${id} names its source`);
    if ("args" in q) {
      const schema = tools.get(expected[0]!)!["inputSchema"] as Row;
      const declared = Object.keys(schema["properties"] as Row);
      for (const arg of Object.keys(q["args"] as Row)) assert.ok(declared.includes(arg), `${id}: ${arg} is declared by ${expected[0]}`);
    }
    if ("context_args" in q) {
      const context = q["context_args"];
      assert.ok(isStringArray(context) && "args" in q, `${id}: context_args`);
      for (const arg of context) assert.ok(arg in (q["args"] as Row), `${id}: context arg ${arg} is in args`);
    }
  }
}
