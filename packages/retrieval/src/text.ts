import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { splitWords, STOPWORDS, withoutValues } from "@switchyard/request-text";
import { stemmer } from "stemmer";

/** Words Porter's "-s" rule would mangle into another word ("news" → "new"). */
const STEM_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["news", "news"],
  ["always", "always"],
  ["series", "series"],
  ["species", "species"],
  ["perhaps", "perhaps"],
]);


/** Words → stems, without stopwords and one-letter words. The tokens of both the sparse and the dense side. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of splitWords(text)) {
    const token = wordToken(word);
    if (token !== undefined) out.push(token);
  }
  return out;
}

/** One word's token (`tokenize` of a word `splitWords` gave): its stem, or undefined for a stopword or a one-letter word. */
export function wordToken(word: string): string | undefined {
  return word.length < 2 || STOPWORDS.has(word) ? undefined : stem(word);
}

/** The Porter stem of one lowercase word (the kept `stemmer` package): "reading" → "read", "files" → "file". */
export function stem(word: string): string {
  let stemmed = STEMS.get(word);
  if (stemmed === undefined) {
    // a vocabulary outgrowing the cache starts it afresh, so it cannot grow without end
    if (STEMS.size >= STEM_CACHE_SIZE) STEMS.clear();
    STEMS.set(word, (stemmed = stemOf(word)));
  }
  return stemmed;
}

/**
 * Stems by word, remembered: indexing a catalog stems the same few thousand
 * words over and over (the Porter stemmer was the costliest step of building
 * an index of 100,000 tools).
 */
const STEMS = new Map<string, string>();
const STEM_CACHE_SIZE = 50_000;

function stemOf(word: string): string {
  const exception = STEM_EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;
  // only plain ASCII words of three letters or more; "is", "as", "ios", numbers and non-English words stay whole
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  return stemmer(word);
}

// ---------------------------------------------------------------------------
// What is indexed for a tool.

/** The parts of a tool that describe it, as plain text, one entry per field. */
export interface ToolFields {
  /** The catalog name split into words: "filesystem read text file". */
  name: string;
  description: string;
  /** Parameter names, titles, descriptions and string enum values, nested ones included. */
  parameters: string;
  /** Example requests shared with every tenant: the catalog entry's and the shared stored ones. */
  examples: string[];
  /** Examples one tenant taught (`ToolDefinition.tenantExamples`): they count for that tenant's requests alone. */
  tenantExamples: { tenant: string; text: string }[];
}

export function toolFields(tool: ToolDefinition): ToolFields {
  const parts: string[] = [];
  collectSchemaText(tool.inputSchema, parts, 0);
  return {
    name: splitWords(tool.name).join(" "),
    description: tool.description,
    parameters: parts.join(" "),
    examples: tool.examples.filter((e) => e.trim().length > 0),
    tenantExamples: tool.tenantExamples.filter((e) => e.text.trim().length > 0).map(({ tenant, text }) => ({ tenant, text })),
  };
}

/** One example request as an index keeps it: as taught, whose it is ("" when shared), and the text compared with requests. */
export interface ExampleDocument {
  text: string;
  owner: string;
  /** The example without its values (`withoutValues`): the file or address it names makes no other request like it. */
  compared: string;
}

/** A tool's examples, the shared ones first, each with its compared text; an example that is nothing but values is left out. */
export function exampleDocuments(f: ToolFields): ExampleDocument[] {
  const all = [...f.examples.map((text) => ({ text, owner: "" })), ...f.tenantExamples.map((e) => ({ text: e.text, owner: e.tenant }))];
  return all.map((e) => ({ ...e, compared: withoutValues(e.text) })).filter((e) => tokenize(e.compared).length > 0);
}

/** The definition an index hands out: without the examples tenants taught, which no search result may show another tenant. */
export function withoutTenantExamples(tool: ToolDefinition): ToolDefinition {
  return tool.tenantExamples.length === 0 ? tool : create(ToolDefinitionSchema, { ...tool, tenantExamples: [] });
}

/** Whether an example owned by `owner` ("" for a shared one) may count for a search by `tenant` (undefined: a search for no tenant). */
export function exampleCounts(owner: string, tenant: string | undefined): boolean {
  return owner === "" || owner === tenant;
}

/** Everything indexed for a tool as one text: name words, description, parameters, shared examples. */
export function toolText(tool: ToolDefinition): string {
  const f = toolFields(tool);
  return [f.name, f.description, f.parameters, ...f.examples].filter((s) => s.length > 0).join("\n");
}

const MAX_SCHEMA_DEPTH = 4;

function collectSchemaText(schema: unknown, out: string[], depth: number): void {
  if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH) return;
  const properties = schema["properties"];
  if (isObject(properties)) {
    for (const [key, prop] of Object.entries(properties)) {
      out.push(splitWords(key).join(" "));
      if (!isObject(prop)) continue;
      for (const field of ["title", "description"]) {
        const text = prop[field];
        if (typeof text === "string") out.push(text);
      }
      const values = prop["enum"];
      if (Array.isArray(values)) for (const v of values) if (typeof v === "string") out.push(v);
      collectSchemaText(prop, out, depth + 1);
    }
  }
  // array items and combinators hold their own properties
  for (const nested of [schema["items"], ...asArray(schema["anyOf"]), ...asArray(schema["oneOf"]), ...asArray(schema["allOf"])]) {
    collectSchemaText(nested, out, depth + 1);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
