/**
 * Fills a tool's arguments from the words of a request, guided only by the tool's JSON schema:
 * property names, descriptions, types, enums and bounds. It never invents a value: what the
 * request does not say stays unfilled, and required properties left unfilled are reported as missing.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { splitWords, scanMessage } from "@switchyard/request-text";
import type { MessageScan, PathRef, Quote, Span } from "@switchyard/request-text";
import { requiredProperties } from "@switchyard/tool-schema";
import { fillRequired } from "./fill-required.js";
import { asArray, asObject, typeOf } from "./json-schema.js";

export interface Extraction {
  /** The arguments found, by property name. */
  args: JsonObject;
  /** Required properties the request did not supply, in schema order. */
  missing: string[];
  /** Properties that were filled, in schema order. */
  filled: string[];
  /** Strong paths in the request that no argument used (a hint that the tool fits the request poorly). */
  unusedPaths: string[];
  /**
   * Share of the request's path mentions the arguments use, 0–1: a strong path (slash or extension) counts 1,
   * a weak one ("the notes folder") 0.5; 1 when the request names no path.
   */
  pathUse: number;
}

type TextRole = "content" | "query" | "pattern" | "name" | "command";

type PropertyKind =
  | { kind: "path"; role: "source" | "destination" | "plain" }
  | { kind: "paths" }
  | { kind: "text"; role: TextRole }
  | { kind: "texts"; role: TextRole }
  | { kind: "number"; integer: boolean }
  | { kind: "boolean" }
  | { kind: "enum"; values: string[] }
  | { kind: "other" };

interface Property {
  name: string;
  schema: JsonObject;
  kind: PropertyKind;
  required: boolean;
}

const PATH_WORDS = new Set(["path", "paths", "file", "files", "filename", "filenames", "filepath", "source", "src", "destination", "dest", "directory", "directories", "dir", "dirs", "folder"]);
/** Path words that also name the ends of a trip or a conversion ("source_currency", "destination"). */
const TRIP_WORDS = new Set(["source", "src", "destination", "dest"]);
// A description that speaks of files: "path", "file", "directory", "folder".
const PATH_DESCRIPTION = /\b(?:path|file|files|directory|directories|folder|folders|filename)\b/;
const SOURCE_WORDS = new Set(["source", "src", "from", "origin", "old"]);
const DESTINATION_WORDS = new Set(["destination", "dest", "target", "to", "new", "output"]);
/** A Map, so that property words such as "constructor" find nothing. */
const TEXT_ROLES = new Map<string, TextRole>([
  ["content", "content"], ["contents", "content"], ["text", "content"], ["body", "content"], ["message", "content"], ["data", "content"],
  ["query", "query"], ["keyword", "query"], ["keywords", "query"], ["term", "query"], ["terms", "query"], ["search", "query"],
  ["pattern", "pattern"], ["glob", "pattern"],
  ["name", "name"], ["names", "name"], ["title", "name"],
  ["command", "command"], ["cmd", "command"],
]);

/** Words in a description that carry no meaning for matching a number to its property. */
const DESCRIPTION_STOP_WORDS = new Set([
  "if", "provided", "returns", "return", "only", "the", "of", "a", "an", "n", "to", "is", "be", "and", "or", "in",
  "default", "number", "value", "optional", "max", "maximum", "min", "minimum", "this", "that", "for", "with", "it",
]);

/** Preposition before a destination path: "move a.txt to b.txt", "save it as b.txt". */
const DESTINATION_PREPOSITIONS = new Set(["to", "into", "as", "onto"]);
/** Preposition before a source path: "copy from a.txt". */
const SOURCE_PREPOSITIONS = new Set(["from"]);
/** Prepositions that end the content of a write: "write hello to notes.md". */
const WRITE_TARGET_PREPOSITIONS = new Set(["to", "in", "into", "inside", "as", "at", "onto"]);
/** Content that only points elsewhere ("save it to a.txt"); the heuristic cannot resolve it, so it stays unfilled. */
const PRONOUNS = new Set(["it", "this", "that", "them", "these", "those", "something", "everything", "the result", "the results"]);

// A word in a description.
const DESCRIPTION_WORD = /[a-z]+/g;
// The first write-like verb of a request: "write", "save", "put", "store", "append".
const WRITE_VERB = /\b(?:write|save|put|store|append)\b/i;
// Filler in front of written content: "write the following text: …", "save the words …".
const CONTENT_PREFIX = /^(?:the\s+)?(?:following\s+)?(?:text|content|contents|words?|lines?|string|message|note)\b\s*:?\s*/i;
// Content introduced after the target: "create a.txt with content hello", "… containing hello", "… saying hello".
const CONTENT_AFTER_TARGET = /\b(?:with\s+(?:the\s+)?(?:content|contents|text|body)|containing|saying|that\s+says|which\s+says)\s*:?\s*(.+)$/is;
// A search phrase introduced by "for", "about", "matching" or "mentioning", up to the end of the sentence, minus a
// trailing "in <place>" that names where to search rather than what.
const QUERY_PHRASE = /\b(?:for|about|matching|mentioning)\s+(.+?)(?:\s+(?:in|under|inside|within)\s+\S+)?[\s.?!]*$/is;
// A name introduced by "named" or "called": "an entity named Alice".
const NAMED = /\b(?:named|called)\s+([^\s,.;:!?]+)/i;
// A command after "run"/"execute": "run ls -la", "execute the command make test".
// … or one the request introduces as a command: "using the command netsh wlan disconnect", "the command called start calc".
const COMMAND_PHRASE = /\b(?:run|execute|exec)\s+(?:the\s+)?(?:command\s+|script\s+)?(.+?)[\s.!]*$|\bcommand(?:\s+called)?\s+(?!is\b|to\b|that\b)(.+?)[\s.!]*$/is;
// Characters that give a word special meaning in a RegExp, escaped before building one from a cue word.
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** Fills the properties of `inputSchema` from `message`; see the module comment. */
export function extractArguments(message: string, inputSchema: JsonObject): Extraction {
  return extractFromScan(scanMessage(message), inputSchema);
}

/** As extractArguments, for a request already scanned (the selector scans once for every candidate). */
export function extractFromScan(scan: MessageScan, inputSchema: JsonObject): Extraction {
  const properties = propertiesOf(inputSchema);
  const state = new FillState(scan);

  fillWrite(state, properties);
  fillPaths(state, properties);
  fillTexts(state, properties);
  fillNumbers(state, properties);
  fillEnums(state, properties);
  fillBooleans(state, properties);
  // Required arguments still empty: any value the request names that fits (fill-required.ts); paths,
  // written content and commands are never guessed.
  const open = properties.filter((p) => p.required && !(p.name in state.args) && !explicitOnly(p)).map((p) => p.name);
  if (open.length > 0) Object.assign(state.args, fillRequired(scan, inputSchema, state.args, open));

  const filled = properties.filter((p) => p.name in state.args).map((p) => p.name);
  const missing = requiredNames(inputSchema, properties).filter((name) => !(name in state.args));
  const used = (p: PathRef) => state.usedPaths.has(p) || (p.quote !== undefined && state.usedQuotes.has(p.quote));
  const unusedPaths = scan.paths.filter((p) => p.strong && !used(p)).map((p) => p.value);
  const weight = (p: PathRef) => (p.strong ? 1 : 0.5);
  const total = scan.paths.reduce((sum, p) => sum + weight(p), 0);
  const pathUse = total === 0 ? 1 : scan.paths.filter(used).reduce((sum, p) => sum + weight(p), 0) / total;
  return { args: state.args, missing, filled, unusedPaths, pathUse };
}

/**
 * Properties the generic pass leaves alone: a guessed path, or content or a command (as the
 * property's own name says: "content", "command"), would do harm.
 */
function explicitOnly(prop: Property): boolean {
  const words = splitWords(prop.name);
  if (prop.kind.kind === "path" || prop.kind.kind === "paths") {
    // A path by its name ("path", "filename"), or by a name that may be one ("source", "destination") and a
    // description that says so; "the destination city" or "the currency you convert from" may be anything.
    if (words.some((w) => PATH_WORDS.has(w) && !TRIP_WORDS.has(w))) return true;
    const description = typeof prop.schema["description"] === "string" ? prop.schema["description"].toLowerCase() : "";
    if (words.some((w) => TRIP_WORDS.has(w)) && (description === "" || PATH_DESCRIPTION.test(description))) return true;
  }
  const role = roleOf(words);
  return role === "content" || role === "command";
}

class FillState {
  readonly args: JsonObject = {};
  readonly usedPaths = new Set<PathRef>();
  readonly usedQuotes = new Set<Quote>();
  constructor(readonly scan: MessageScan) {}

  usePath(ref: PathRef): string {
    this.usedPaths.add(ref);
    if (ref.quote) this.usedQuotes.add(ref.quote);
    return ref.value;
  }

  freePaths(): PathRef[] {
    return this.scan.paths.filter((p) => !this.usedPaths.has(p) && !(p.quote && this.usedQuotes.has(p.quote)));
  }

  /** Quotes not used yet and not strong paths (a quoted path is a path, not content). */
  freeTextQuotes(): Quote[] {
    return this.scan.quotes.filter(
      (q) => !this.usedQuotes.has(q) && !this.scan.paths.some((p) => p.quote === q && p.strong),
    );
  }
}

/** Required names in schema order; a required name with no property definition still counts (and can never be filled). */
function requiredNames(schema: JsonObject, properties: Property[]): string[] {
  const listed = requiredProperties(schema);
  const known = properties.filter((p) => p.required).map((p) => p.name);
  return [...known, ...listed.filter((name) => !known.includes(name))];
}

/** The schema's properties, each with the kind of value it takes and whether it is required. */
export function propertiesOf(schema: JsonObject): Property[] {
  const props = asObject(schema["properties"]);
  if (!props) return [];
  const required = new Set(requiredProperties(schema));
  return Object.entries(props).flatMap(([name, value]) => {
    const propSchema = asObject(value);
    return propSchema ? [{ name, schema: propSchema, kind: classify(name, propSchema), required: required.has(name) }] : [];
  });
}

/** Decides what a property is, from its type first, then its name, then its description. */
function classify(name: string, schema: JsonObject): PropertyKind {
  const words = splitWords(name);
  const description = typeof schema["description"] === "string" ? schema["description"].toLowerCase() : "";
  const descriptionWords = new Set(description.match(DESCRIPTION_WORD) ?? []);
  const type = typeOf(schema);
  const enumValues = asArray(schema["enum"]);

  if (type === "integer" || type === "number") return { kind: "number", integer: type === "integer" };
  if (type === "boolean") return { kind: "boolean" };
  if (enumValues && enumValues.every((v) => typeof v === "string")) return { kind: "enum", values: enumValues as string[] };
  if (type === "array") {
    const items = asObject(schema["items"]);
    if (!items || typeOf(items) !== "string") return { kind: "other" };
    if (words.some((w) => PATH_WORDS.has(w))) return { kind: "paths" };
    const role = roleOf(words);
    if (role) return { kind: "texts", role };
    if ([...descriptionWords].some((w) => PATH_WORDS.has(w) && w !== "file")) return { kind: "paths" };
    return { kind: "other" };
  }
  if (type !== "string" && type !== undefined) return { kind: "other" };

  if (words.some((w) => PATH_WORDS.has(w))) return { kind: "path", role: pathRole(words) };
  const role = roleOf(words);
  if (role) return { kind: "text", role };
  if ([...descriptionWords].some((w) => PATH_WORDS.has(w))) return { kind: "path", role: pathRole([...descriptionWords]) };
  const descriptionRole = roleOf([...descriptionWords]);
  if (descriptionRole) return { kind: "text", role: descriptionRole };
  return { kind: "other" };
}

function pathRole(words: string[]): "source" | "destination" | "plain" {
  if (words.some((w) => DESTINATION_WORDS.has(w))) return "destination";
  if (words.some((w) => SOURCE_WORDS.has(w))) return "source";
  return "plain";
}

function roleOf(words: string[]): TextRole | undefined {
  for (const w of words) {
    const role = TEXT_ROLES.get(w);
    if (role) return role;
  }
  return undefined;
}

/** "write X to Y", "save X in Y", "write to Y: X", "create Y with content X": content and its target together. */
function fillWrite(state: FillState, properties: Property[]): void {
  const content = properties.find((p) => p.kind.kind === "text" && p.kind.role === "content");
  const target = properties.find((p) => p.kind.kind === "path" && p.kind.role !== "source");
  if (!content || !target) return;
  const { text } = state.scan;

  const verb = WRITE_VERB.exec(state.scan.unquoted);
  if (verb) {
    const afterVerb = verb.index + verb[0].length;
    const ref = state.freePaths().find((p) => p.start > afterVerb && WRITE_TARGET_PREPOSITIONS.has(p.before));
    if (ref) {
      const prepositionAt = lastWordIndex(text, ref.before, ref.start);
      const written = cleanContent(text.slice(afterVerb, prepositionAt), state);
      const afterColon = text.slice(ref.end).match(/^\s*:\s*(.+)$/s); // "write to notes.md: hello" puts the content after the colon.
      const value = written || (afterColon ? cleanContent(afterColon[1] ?? "", state) : "");
      if (value) {
        state.args[content.name] = value;
        state.args[target.name] = state.usePath(ref);
        return;
      }
    }
  }
  const introduced = CONTENT_AFTER_TARGET.exec(text);
  if (introduced) {
    const value = cleanContent(introduced[1] ?? "", state);
    const ref = state.freePaths().find((p) => p.start < introduced.index && (p.strong || WRITE_TARGET_PREPOSITIONS.has(p.before)));
    if (value && ref) {
      state.args[content.name] = value;
      state.args[target.name] = state.usePath(ref);
    }
  }
}

/** Trims written content, unwraps a quote that is the whole content, and rejects pronouns. */
function cleanContent(raw: string, state: FillState): string {
  let value = raw.trim().replace(CONTENT_PREFIX, "").trim();
  const quote = state.scan.quotes.find((q) => state.scan.text.slice(q.start, q.end) === value);
  if (quote) {
    state.usedQuotes.add(quote);
    value = quote.value;
  }
  return PRONOUNS.has(value.toLowerCase()) ? "" : value;
}

function fillPaths(state: FillState, properties: Property[]): void {
  const pathProps = properties.filter((p) => p.kind.kind === "path" && !(p.name in state.args));
  const byRole = (role: string) => pathProps.filter((p) => p.kind.kind === "path" && p.kind.role === role);
  // Destinations first, so "move a.txt to b.txt" gives b.txt to the destination before the source takes the first path.
  for (const prop of byRole("destination")) {
    const free = rankPaths(state.freePaths());
    const ref = free.find((p) => DESTINATION_PREPOSITIONS.has(p.before)) ?? (byRole("source").length > 0 ? free[1] : free[0]);
    if (ref) state.args[prop.name] = state.usePath(ref);
  }
  for (const prop of [...byRole("source"), ...byRole("plain")]) {
    const free = rankPaths(state.freePaths());
    const ref = (prop.kind.kind === "path" && prop.kind.role === "source" ? free.find((p) => SOURCE_PREPOSITIONS.has(p.before)) : undefined) ?? free[0];
    if (ref) state.args[prop.name] = state.usePath(ref);
  }
  for (const prop of properties.filter((p) => p.kind.kind === "paths" && !(p.name in state.args))) {
    const free = state.freePaths();
    const strong = free.filter((p) => p.strong);
    const chosen = strong.length > 0 ? strong : free;
    if (chosen.length > 0) state.args[prop.name] = chosen.map((p) => state.usePath(p));
  }
}

/** Strong paths before weak ones, each in order of appearance. */
function rankPaths(paths: PathRef[]): PathRef[] {
  return [...paths.filter((p) => p.strong), ...paths.filter((p) => !p.strong)];
}

function fillTexts(state: FillState, properties: Property[]): void {
  const { scan } = state;
  for (const prop of properties) {
    if (prop.name in state.args) continue;
    if (prop.kind.kind === "texts") {
      const quotes = state.freeTextQuotes();
      if (quotes.length > 0) state.args[prop.name] = quotes.map((q) => (state.usedQuotes.add(q), q.value));
      continue;
    }
    if (prop.kind.kind !== "text") continue;
    const role = prop.kind.role;
    const quotes = state.freeTextQuotes();
    const preferred =
      role === "pattern" ? quotes.find((q) => q.value.includes("*") || q.value.includes("?"))
      : role === "command" ? quotes.find((q) => q.mark === "`")
      : undefined;
    const quote = preferred ?? quotes[0];
    if (quote) {
      state.usedQuotes.add(quote);
      state.args[prop.name] = quote.value;
      continue;
    }
    const value = textFallback(role, scan, state);
    if (value) state.args[prop.name] = value;
  }
}

/** What an unquoted request can still say for a text property. */
function textFallback(role: TextRole, scan: MessageScan, state: FillState): string | undefined {
  const unquotedText = scan.unquoted;
  switch (role) {
    case "pattern": {
      if (scan.globs[0]) return scan.globs[0].value;
      if (scan.extensions[0]) return `*${scan.extensions[0].value}`;
      return NAMED.exec(unquotedText)?.[1];
    }
    case "name":
      return NAMED.exec(unquotedText)?.[1];
    case "query": {
      // Quotes are blanked: a quoted phrase would have been used already, and a quoted path is not a query.
      const phrase = QUERY_PHRASE.exec(unquotedText)?.[1]?.trim();
      if (!phrase || PRONOUNS.has(phrase.toLowerCase())) return undefined;
      // A phrase that is only a path already taken belongs to that path.
      if (state.scan.paths.some((p) => p.value === phrase && state.usedPaths.has(p))) return undefined;
      return phrase;
    }
    case "command":
    {
      const m = COMMAND_PHRASE.exec(unquotedText);
      return (m?.[1] ?? m?.[2])?.trim() || undefined;
    }
    case "content":
      return undefined;
  }
}

function fillNumbers(state: FillState, properties: Property[]): void {
  const numberProps = properties.filter((p) => p.kind.kind === "number");
  if (numberProps.length === 0) return;
  const cues = new Map(numberProps.map((p) => [p.name, numberCues(p, numberProps)]));
  const taken = new Set<Span>();
  for (const prop of numberProps) {
    const ref = state.scan.numbers.find((n) => !taken.has(n) && cuedBy(state.scan.unquoted, n, cues.get(prop.name) ?? []));
    if (ref && accepts(prop, ref.number)) {
      state.args[prop.name] = ref.number;
      taken.add(ref);
    }
  }
  // A lone required number with a lone number in the request: "return 5 results" for {count}.
  const lone = numberProps.filter((p) => !(p.name in state.args));
  const free = state.scan.numbers.filter((n) => !taken.has(n));
  const only = lone[0];
  const single = free[0];
  if (numberProps.length === 1 && only?.required && free.length === 1 && single && accepts(only, single.number)) {
    state.args[only.name] = single.number;
  }
}

/** The property's own name words, and the words of its description no sibling number property shares. */
function numberCues(prop: Property, siblings: Property[]): string[] {
  const own = descriptionWords(prop.schema);
  const shared = new Set(siblings.filter((s) => s !== prop).flatMap((s) => [...descriptionWords(s.schema)]));
  return [...new Set([...splitWords(prop.name), ...[...own].filter((w) => !shared.has(w))])];
}

function descriptionWords(schema: JsonObject): Set<string> {
  const description = typeof schema["description"] === "string" ? schema["description"].toLowerCase() : "";
  return new Set((description.match(DESCRIPTION_WORD) ?? []).filter((w) => w.length > 1 && !DESCRIPTION_STOP_WORDS.has(w)));
}

/** True when a cue word sits right before the number ("first 10", "head: 10", "limit = 5") or right after it ("5 results"). */
function cuedBy(text: string, number: Span, cues: string[]): boolean {
  const before = text.slice(Math.max(0, number.start - 40), number.start).toLowerCase();
  const after = text.slice(number.end, number.end + 40).toLowerCase();
  return cues.some((cue) => {
    const word = cue.replace(REGEXP_SPECIAL, "\\$&");
    // The cue, then optional ":", "=" or "of"/"to", then the number: "first 10", "head=10", "limit to 5".
    const cueFirst = new RegExp(`\\b${word}\\s*(?:[:=]|\\bof\\b|\\bto\\b)?\\s*$`);
    // The number, then the cue: "5 results", "10 first lines".
    const numberFirst = new RegExp(`^\\s+${word}\\b`);
    return cueFirst.test(before) || numberFirst.test(after);
  });
}

/** True when the value fits the property's type and bounds; out-of-range values are left out, never clamped. */
function accepts(prop: Property, value: number): boolean {
  const s = prop.schema;
  if (prop.kind.kind === "number" && prop.kind.integer && !Number.isInteger(value)) return false;
  if (typeof s["minimum"] === "number" && value < s["minimum"]) return false;
  if (typeof s["maximum"] === "number" && value > s["maximum"]) return false;
  if (typeof s["exclusiveMinimum"] === "number" && value <= s["exclusiveMinimum"]) return false;
  if (typeof s["exclusiveMaximum"] === "number" && value >= s["exclusiveMaximum"]) return false;
  return true;
}

function fillEnums(state: FillState, properties: Property[]): void {
  const text = state.scan.unquoted.toLowerCase();
  for (const prop of properties) {
    if (prop.kind.kind !== "enum" || prop.name in state.args) continue;
    const mentioned = prop.kind.values.filter((v) => mentionIndex(text, v) >= 0);
    if (mentioned.length === 1) {
      state.args[prop.name] = mentioned[0]!;
      continue;
    }
    // Several values mentioned: take the one right after the property's own words ("sort by size").
    // Short words such as "by" in "sortBy" would match anywhere; only the meaningful ones count.
    const cues = splitWords(prop.name).filter((w) => w.length >= 3);
    const cued = mentioned.filter((v) =>
      cues.some((cue) => {
        const escapedCue = cue.replace(REGEXP_SPECIAL, "\\$&");
        const escapedValue = v.toLowerCase().replace(REGEXP_SPECIAL, "\\$&");
        // The cue, up to two words (such as "by"), then the value: "sort by size", "sortBy: name".
        return new RegExp(`\\b${escapedCue}\\w*\\W+(?:\\w+\\W+){0,2}?${escapedValue}(?![\\w-])`).test(text);
      }),
    );
    if (cued.length === 1) state.args[prop.name] = cued[0]!;
  }
}

/** Where a value occurs as a whole word (dashes count as word characters, so "size" is not in "pre-size"). */
function mentionIndex(text: string, value: string): number {
  const escaped = value.toLowerCase().replace(REGEXP_SPECIAL, "\\$&");
  // The value, not preceded or followed by a word character or a dash.
  return text.search(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`));
}

function fillBooleans(state: FillState, properties: Property[]): void {
  const text = state.scan.unquoted.toLowerCase();
  for (const prop of properties) {
    if (prop.kind.kind !== "boolean" || prop.name in state.args) continue;
    const words = splitWords(prop.name).map((w) => w.replace(REGEXP_SPECIAL, "\\$&"));
    // The property's words written apart, hyphenated or joined: "dry run", "dry-run", "dryrun".
    const cue = `(?:${words.join("[\\s-]?")})`;
    // A negation in front: "without a dry run", "no dry-run", "don't recurse".
    const negated = new RegExp(`\\b(?:no|not|without|don't|do\\s+not|disable|skip)\\s+(?:a\\s+|the\\s+)?${cue}\\b`);
    // An explicit value after it: "dry run: yes", "recursive = false", "dryRun is on".
    const assigned = new RegExp(`\\b${cue}\\s*(?:[:=]|\\bis\\b|\\bset\\s+to\\b)?\\s*(true|false|yes|no|on|off|enabled|disabled)\\b`);
    // An explicit request for it: "with dry run", "as a dry run", "enable recursive".
    const asked = new RegExp(`\\b(?:with|enable|enabled|using|use|as\\s+a|do\\s+a)\\s+(?:a\\s+|the\\s+)?${cue}\\b`);
    const value = assigned.exec(text)?.[1];
    if (negated.test(text)) state.args[prop.name] = false;
    else if (value) state.args[prop.name] = ["true", "yes", "on", "enabled"].includes(value);
    else if (asked.test(text)) state.args[prop.name] = true;
  }
}

/** Index of the last occurrence of `word` before `end`, or `end` when absent. */
function lastWordIndex(text: string, word: string, end: number): number {
  const escaped = word.replace(REGEXP_SPECIAL, "\\$&");
  // Every whole-word occurrence of the preposition; the last one before the target wins.
  const matches = [...text.slice(0, end).matchAll(new RegExp(`\\b${escaped}\\b`, "gi"))];
  return matches.length > 0 ? matches[matches.length - 1]!.index : end;
}
