/**
 * The last pass of argument extraction: required arguments the schema-specific fillers
 * (extract-args.ts) left empty get a value the request names (find-values.ts), chosen by the
 * property's type, its name and its description:
 *
 * - an enum takes the value the request mentions (case, "_" and "-" aside);
 * - a number or integer takes a number, preferably one next to the property's own words
 *   ("2 bedrooms"), else the next unused one;
 * - a string takes, by what its name (its last word first) or description says it holds: a
 *   date, a time, a link, an e-mail address, a place ("from Boston" for an origin, "to Chicago"
 *   for a destination, "in Delhi" or "in berkeley" for a city, the "Australia" of "Sydney,
 *   Australia" for a country), an identifier, a math expression, or a name. A value right
 *   after or before the property's own words comes first ("project id SUPERFANCY"), except
 *   that a name takes, before anything else, the word before the noun a kind-of property
 *   qualifies ("Type of the instrument": "an acoustic instrument") or an example its
 *   description lists that the request uses ("e.g. strategy, family"); failing all, the word
 *   next to the property's own ("easy mode", "namespace cascade-sandbox"). A free-text property (a query, a
 *   question) takes a quoted phrase, the phrase after "for"/"about", or else a name;
 * - an array takes a bracketed list, else every unused number or name of its item type, or
 *   the enum values the request mentions;
 * - anything still empty takes the schema's `default`, if it gives one.
 *
 * What the request does not name stays empty, so the reviewer still refuses a call whose
 * required arguments the user did not give ("book a table" without a restaurant).
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { MessageScan } from "@switchyard/request-text";
import { splitWords } from "@switchyard/request-text";
import { findValues } from "./find-values.js";
import type { FoundValue, ValueKind } from "./find-values.js";
import { asArray, asObject, typeOf } from "./json-schema.js";

type Want = "date" | "time" | "place" | "url" | "email" | "identifier" | "math" | "query" | "name";

const WANT_WORDS: [Want, ReadonlySet<string>][] = [
  ["url", new Set(["url", "uri", "link", "endpoint", "website", "webpage", "domain", "homepage"])],
  ["email", new Set(["email", "mail"])],
  ["date", new Set(["date", "day", "birthday", "dob", "deadline", "when", "checkin", "checkout", "season", "period"])],
  ["time", new Set(["time", "hour", "clock"])],
  ["math", new Set(["function", "expression", "equation", "formula", "polynomial", "integrand"])],
  ["place", new Set([
    "city", "location", "place", "where", "area", "address", "region", "country", "state", "destination", "origin", "from",
    "to", "start", "end", "venue", "town", "near", "loc", "departure", "arrival", "pickup", "dropoff", "source", "target",
    "province", "county", "neighborhood", "district", "airport", "station",
  ])],
  ["identifier", new Set([
    "id", "ids", "key", "token", "password", "username", "code", "uuid", "identifier", "account", "ref", "reference",
    "version", "namespace", "sku", "ip", "hostname", "host", "db", "database", "table", "column", "branch", "repo",
    "repository", "handle", "serial", "zipcode", "zip", "postcode", "isbn", "symbol", "ticker", "hash", "cursor",
  ])],
  // Things named by a word or a name, not a place, even with "from"/"to" in the property's name.
  ["name", new Set(["currency", "language", "unit", "units", "team", "player", "company", "brand", "genre", "category", "type", "kind", "mode"])],
  ["query", new Set([
    "query", "keyword", "keywords", "search", "term", "terms", "text", "question", "prompt", "message", "content", "contents",
    "description", "topic", "subject", "input", "sentence", "phrase", "statement", "request", "instruction", "instructions",
    "task", "note", "comment", "body", "details", "string", "words", "utterance",
  ])],
];
// What each kind of property accepts, best first.
const ACCEPTS: Record<Want, ValueKind[]> = {
  date: ["date", "number"],
  time: ["time"],
  url: ["url", "quote", "identifier"],
  email: ["email", "quote"],
  place: ["place", "name", "quote"],
  identifier: ["quote", "identifier", "number", "name", "email", "url"],
  math: ["quote"],
  query: ["quote"],
  name: ["quote", "name", "place", "identifier", "email"],
};
// Words of a property name that say it is the start of a trip, or its end.
const ORIGIN_WORDS = new Set(["from", "origin", "start", "departure", "pickup", "source", "departing"]);
const DESTINATION_WORDS = new Set(["to", "destination", "end", "arrival", "dropoff", "target", "arriving"]);
// Words before the value of a trip's start ("from Boston", "starting April 14th") and of its end ("to Chicago", "until the 18th").
const START_PREPOSITIONS = new Set(["from", "starting", "departing", "leaving", "on", "since", "at"]);
const END_PREPOSITIONS = new Set(["to", "until", "till", "through", "thru", "returning", "arriving", "into"]);
// A lower-case word after "in", "at" or "near" that ends the clause: "a therapist in berkeley."
const LOWER_PLACE = /\b(?:in|at|near)\s+([a-z][a-z-]{2,}(?:\s+[a-z][a-z-]{2,})?)\s*(?:[.,?!;]|$)/;
// Words after "in" that are not places.
const NOT_PLACES = new Set(["the morning", "the evening", "the afternoon", "advance", "total", "general", "detail", "stock", "person", "time", "it", "there", "here", "mind", "order", "return"]);
const REGION_WORDS = new Set(["country", "state", "province", "region", "county"]);
const PLACE_PREPOSITIONS = new Set(["in", "at", "near", "around", "for", "of", "to", "from", "within", "inside"]);
// Words between a property's own words and its value: "username is pascal", "namespace: default", "named Alice".
const LINKING = new Set(["is", "are", "was", "=", "of", "named", "called", "titled", "the", "a", "an", "as", "my", "our", "for"]);
// Words that say what kind of value follows them: "id", "uuid", "name", "number", "code".
const KIND_WORDS = new Set(["id", "uuid", "name", "number", "code", "key", "no"]);
// A four-digit year.
const YEAR = /^(?:1[5-9]|20)\d{2}$/;
/** Words a quoted value may have and still be a name or an identifier. */
const QUOTED_NAME_WORDS = 8;
// Property-name words too common to be cues on their own.
const WEAK_CUES = new Set(["name", "type", "value", "data", "info", "number", "the", "of", "in", "to", "from", "by", "for", "is"]);

// A math expression: a variable or number joined by operators ("3x**2 + 2x - 1", "x^2", "sin(x)").
const MATH = /(?:[\dxyz(][\dxyz()\s.*+^/-]*(?:\*\*|\^|[+*/-])[\dxyz()\s.*+^/-]*[\dxyz)])|\b(?:sin|cos|tan|exp|log|sqrt)\s*\([^)]*\)/g;
// A free-text phrase after "for", "about" or "on", up to the end of the sentence.
const PHRASE_AFTER = /\b(?:for|about|on|regarding)\s+([^.?!\n]{2,}?)\s*(?:[.?!\n]|$)/i;
// Example values a description lists: "e.g. strategy, family, party", "such as 'default' or 'kube-system'", "like steep, moderate etc."
const EXAMPLES = /\b(?:e\.g\.?|eg|such\s+as|like|for\s+example|for\s+instance|example:?|examples:?|i\.e\.?)\s*:?\s*([^.;)]*)/gi;
// One listed example: words, possibly quoted.
const EXAMPLE_ITEM = /['"]?([\p{L}\p{N}][\p{L}\p{N} _-]*?)['"]?\s*(?:,|\bor\b|\band\b|\betc\b|$)/gu;

interface Slot {
  name: string;
  schema: JsonObject;
  words: string[];
  /** The schema has both a start and an end of a trip (from_city and to_city). */
  paired: boolean;
}

/**
 * Values for the `missing` required properties of `schema` from the request, keyed by
 * property; `args` are those already filled (their values are not used again).
 */
export function fillRequired(scan: MessageScan, schema: JsonObject, args: JsonObject, missing: readonly string[]): JsonObject {
  const props = asObject(schema["properties"]) ?? {};
  const values = findValues(scan);
  const filledTexts = new Set(Object.values(args).flatMap((v) => (Array.isArray(v) ? v : [v])).map((v) => String(v).toLowerCase()));
  const used = new Set<FoundValue>(values.filter((v) => filledTexts.has(String(v.value).toLowerCase())));
  const out: JsonObject = {};
  // A trip's start and end are told apart by "from" and "to" only when the schema asks for both.
  const roles = new Set(Object.keys(props).map((name) => roleOfTrip(splitWords(name))));
  const paired = roles.has("start") && roles.has("end");
  const slots = missing.flatMap((name): Slot[] => {
    const propSchema = asObject(props[name]);
    return propSchema ? [{ name, schema: propSchema, words: splitWords(name), paired }] : [];
  });
  // Numbers first, then strings from the most specific kind (so a date does not end up as a name), and
  // among them a trip's start before its end; arrays, which take every value left, last.
  const order = (slot: Slot) => {
    const type = typeOf(slot.schema);
    if (type === "number" || type === "integer" || asArray(slot.schema["enum"])) return 0;
    if (type === "array") return 30;
    if (type !== "string" && type !== undefined) return 40;
    const rank = ["date", "time", "url", "email", "math", "place", "identifier", "name", "query"].indexOf(wantOf(slot));
    return 2 * rank + 1 + (roleOfTrip(slot.words) === "end" ? 1 : 0);
  };
  for (const slot of [...slots].sort((a, b) => order(a) - order(b))) {
    const value = fillOne(slot, scan, values, used);
    if (value !== undefined) out[slot.name] = value;
    else if (slot.schema["default"] !== undefined && slot.schema["default"] !== null) out[slot.name] = slot.schema["default"];
  }
  return out;
}

function fillOne(slot: Slot, scan: MessageScan, values: FoundValue[], used: Set<FoundValue>): JsonValue | undefined {
  const type = typeOf(slot.schema);
  const take = (v: FoundValue | undefined) => (v ? (used.add(v), v) : undefined);
  const free = values.filter((v) => !used.has(v));
  const enumValues = asArray(slot.schema["enum"]);
  if (enumValues) return mentionedEnum(scan.text, enumValues);

  switch (type) {
    case "integer":
    case "number": {
      const fits = free.filter((v) => v.kind === "number" && accepts(slot.schema, v.value as number, type === "integer"));
      const v = take(fits.find((n) => cuedBy(n, slot.words)) ?? fits[0]);
      return v ? (v.value as number) : undefined;
    }
    case "boolean":
      return undefined;
    case "array": {
      const items = asObject(slot.schema["items"]) ?? {};
      const itemType = typeOf(items);
      const itemEnum = asArray(items["enum"]);
      if (itemEnum) {
        const mentioned = itemEnum.filter((v) => mentionedEnum(scan.text, [v]) !== undefined);
        return mentioned.length > 0 ? mentioned : undefined;
      }
      const want = wantOf(slot);
      const kinds: ValueKind[] =
        itemType === "number" || itemType === "integer" ? ["number"]
        : itemType === "string" || itemType === undefined ? (want === "date" || want === "time" ? [want] : ["quote", "name", "place", "identifier"])
        : [];
      const fitting = (v: FoundValue) => kinds.includes(v.kind) && (v.kind !== "number" || itemType !== "integer" || Number.isInteger(v.value));
      // A bracketed list ("[3, 2, 1]") is one array; several lists fill several arrays in order.
      const list = bracketLists(scan.text).map((span) => free.filter((v) => v.start >= span[0] && v.end <= span[1])).find((vs) => vs.length > 0 && vs.every(fitting));
      const chosen = list ?? free.filter(fitting);
      if (chosen.length === 0) return undefined;
      chosen.forEach((v) => used.add(v));
      return chosen.map((v) => v.value);
    }
    case "string":
    case undefined:
      return fillString(slot, scan, free, values, take);
    default:
      return undefined;
  }
}

function fillString(
  slot: Slot,
  scan: MessageScan,
  free: FoundValue[],
  values: FoundValue[],
  take: (v: FoundValue | undefined) => FoundValue | undefined,
): string | undefined {
  const want = wantOf(slot);
  const modifier = want === "name" ? modifierOf(slot, scan.unquoted) : undefined;
  if (modifier) return modifier;
  // Listed examples are categories ("e.g. strategy, family"); for places, dates and the like they show a format.
  const example = want === "name" || want === "query" ? listedExample(slot.schema, scan.unquoted) : undefined;
  if (example) return example;
  const accepted = ACCEPTS[want];
  const fits = free.filter(
    (v) =>
      accepted.includes(v.kind) &&
      // A number is a date only as a year ("the 2021 season").
      (want !== "date" || v.kind !== "number" || YEAR.test(String(v.value))) &&
      (want !== "url" || v.kind !== "identifier" || /[._/]/.test(String(v.value))) &&
      // A quoted passage is a query's or a message's, not a name's.
      (want === "query" || v.kind !== "quote" || String(v.value).split(/\s+/).length <= QUOTED_NAME_WORDS),
  );
  const asText = (v: FoundValue | undefined) => (v ? String(take(v)!.value) : undefined);

  const cued = fits.find((v) => cuedBy(v, slot.words));
  if (cued) return asText(cued);
  const trip = slot.paired ? roleOfTrip(slot.words) : undefined;
  const preposition = (v: FoundValue) => v.before.at(-1) ?? "";
  if (trip) {
    const words = trip === "start" ? START_PREPOSITIONS : END_PREPOSITIONS;
    const other = trip === "start" ? END_PREPOSITIONS : START_PREPOSITIONS;
    const placed = fits.find((v) => words.has(preposition(v)));
    if (placed) return asText(placed);
    // "between New York and Los Angeles": without "from"/"to", the start comes first (it is filled first);
    // a value the other end's word introduces is not this end's.
    const unmarked = fits.find((v) => v.kind !== "number" && !other.has(preposition(v)));
    return asText(unmarked);
  }
  if (want === "place") {
    // "Sydney, Australia" holds the country too: a country or state takes its tail and leaves the whole for the city.
    if (slot.words.some((w) => REGION_WORDS.has(w))) {
      const tail = values.find((v) => v.kind === "place" && String(v.value).includes(","));
      if (tail) return String(tail.value).split(",").at(-1)!.trim();
    }
    const placed = fits.find((v) => PLACE_PREPOSITIONS.has(preposition(v)));
    if (placed) return asText(placed);
    // Written in lower case: "a therapist in berkeley".
    const lower = LOWER_PLACE.exec(scan.unquoted)?.[1];
    if (lower && !NOT_PLACES.has(lower.toLowerCase())) return lower;
  }
  if (want === "math") {
    const expression = [...scan.unquoted.matchAll(MATH)].map((m) => m[0].trim()).find((e) => /[xyz]/.test(e) || /\*\*|\^/.test(e));
    if (expression) return expression;
  }
  const first = fits.find((v) => v.kind !== "number");
  if (first) return asText(first);
  const neighbour = want === "name" || want === "identifier" ? neighbourOf(slot, scan.unquoted) : undefined;
  if (neighbour) return neighbour;
  if (want === "identifier" && fits[0]) return asText(fits[0]);
  if (want === "query") {
    const phrase = PHRASE_AFTER.exec(scan.unquoted)?.[1]?.trim();
    if (phrase) return phrase;
    return asText(free.find((v) => v.kind === "name" || v.kind === "place"));
  }
  return undefined;
}

/** "start" for a trip's origin or start (from_city, start_date), "end" for its destination or end; else undefined. */
function roleOfTrip(words: readonly string[]): "start" | "end" | undefined {
  if (words.some((w) => ORIGIN_WORDS.has(w))) return "start";
  if (words.some((w) => DESTINATION_WORDS.has(w))) return "end";
  return undefined;
}

/** What a string property holds, from its name's words (the last, its head noun, first), else its description's. */
function wantOf(slot: Slot): Want {
  for (const word of [...slot.words].reverse()) {
    for (const [want, words] of WANT_WORDS) if (words.has(word)) return want;
  }
  const description = typeof slot.schema["description"] === "string" ? slot.schema["description"].toLowerCase() : "";
  const format = typeof slot.schema["format"] === "string" ? slot.schema["format"] : "";
  if (format === "date" || /\byyyy\b|\bdate\b/.test(description)) return "date";
  if (format === "time" || /\bhh:mm\b/.test(description)) return "time";
  if (format === "uri" || format === "url") return "url";
  if (format === "email") return "email";
  return "name";
}

// A bracketed list: "[…]" or "(…)" with a comma inside.
const BRACKET_LIST = /\[[^[\]]*,[^[\]]*\]|\([^()]*,[^()]*\)/g;

function bracketLists(text: string): [number, number][] {
  return [...text.matchAll(BRACKET_LIST)].map((m) => [m.index, m.index + m[0].length]);
}

/** The value sits right after the property's own words ("namespace cascade-sandbox") or right before them ("employees database"). */
function cuedBy(value: FoundValue, words: readonly string[]): boolean {
  const cues = words.filter((w) => w.length >= 2 && !WEAK_CUES.has(w));
  if (cues.length === 0) return false;
  const before = [...value.before];
  while (before.length > 0 && LINKING.has(before.at(-1)!)) before.pop();
  // "project id SUPERFANCY", "component UUID AB1010CD": the cue may stand before a word that only says what kind of value follows.
  const nearest = [before.at(-1), ...(KIND_WORDS.has(before.at(-1) ?? "") ? [before.at(-2)] : [])];
  const after = value.after[0];
  return cues.some((cue) => nearest.some((word) => sameWord(word, cue)) || sameWord(after, cue));
}

function sameWord(word: string | undefined, cue: string): boolean {
  if (!word) return false;
  return word === cue || word === `${cue}s` || cue === `${word}s`;
}

// "Type of the instrument", "The genre of movies": what a kind-of property qualifies.
const KIND_OF = /\b(?:type|kind|category|genre|style|sort|class)\s+of\s+(?:the\s+|a\s+|an\s+)?([a-z]+)/i;
const KIND_SLOT_WORDS = new Set(["type", "kind", "category", "genre", "style", "class"]);
// Words that do not qualify a noun: articles, pronouns, quantities.
const NOT_MODIFIERS = new Set(["a", "an", "the", "my", "our", "your", "some", "any", "this", "that", "of", "for", "find", "get", "search", "me", "all", "best", "good", "new", "which", "what"]);

/** For a kind-of property ("type": "Type of the instrument"), the word before that noun in the request ("acoustic instrument"). */
function modifierOf(slot: Slot, text: string): string | undefined {
  if (!slot.words.some((w) => KIND_SLOT_WORDS.has(w))) return undefined;
  const noun = KIND_OF.exec(typeof slot.schema["description"] === "string" ? slot.schema["description"] : "")?.[1]?.toLowerCase();
  if (!noun) return undefined;
  // The word right before the noun (letters only, so nothing to escape) or its plural: "an acoustic instrument".
  const m = new RegExp(`\\b([\\p{L}-]+)\\s+${noun}(?:s|es)?\\b`, "iu").exec(text);
  const word = m?.[1]?.toLowerCase();
  return word && !NOT_MODIFIERS.has(word) ? word : undefined;
}

/**
 * The word next to the property's own word in the request, when no value was found: right
 * before it ("easy mode", "the employees database") unless that is a function word, else right
 * after it ("namespace cascade-sandbox").
 */
function neighbourOf(slot: Slot, text: string): string | undefined {
  const cues = slot.words.filter((w) => w.length >= 3 && !WEAK_CUES.has(w));
  if (cues.length === 0) return undefined;
  // The request's words, identifiers whole ("cascade-sandbox", "personal_data").
  const words = text.toLowerCase().match(/[\p{L}\p{N}_.-]+/gu) ?? [];
  for (let i = 0; i < words.length; i++) {
    if (!cues.some((cue) => sameWord(words[i], cue))) continue;
    const before = words[i - 1];
    if (before && !NOT_MODIFIERS.has(before) && !LINKING.has(before) && !KIND_WORDS.has(before)) return before;
    const after = words[i + 1];
    // After the word only something that looks like an identifier (a digit, "_" or "-"): "namespace cascade-sandbox".
    if (after && !NOT_MODIFIERS.has(after) && !LINKING.has(after) && /[\p{N}_-]/u.test(after)) return after;
  }
  return undefined;
}

/** An example value the property's description lists that the request uses as a word. */
function listedExample(schema: JsonObject, text: string): string | undefined {
  const description = typeof schema["description"] === "string" ? schema["description"] : "";
  const lower = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}_-]+/gu, " ")} `;
  for (const m of description.matchAll(EXAMPLES)) {
    for (const item of (m[1] ?? "").matchAll(EXAMPLE_ITEM)) {
      const example = item[1]?.trim().toLowerCase();
      if (example && example.length >= 3 && (lower.includes(` ${example} `) || lower.includes(` ${example}s `))) return example;
    }
  }
  return undefined;
}

/**
 * The enum value the text mentions, comparing without case and with "_"/"-" as spaces; failing
 * that, the one whose every word shares its first five letters with a word of the text
 * ("Family Counseling" for "Family Counselor", "musical" for "Music"), if only one does.
 */
function mentionedEnum(text: string, values: JsonValue[]): JsonValue | undefined {
  const norm = (s: string) => ` ${s.toLowerCase().replace(/[_\-\s]+/g, " ").trim()} `;
  const haystack = norm(text.replace(/[^\p{L}\p{N}_-]+/gu, " "));
  const candidates = values.filter((v): v is string | number => typeof v === "string" || typeof v === "number");
  // Several mentioned ("music or theater events"): the first the request names.
  const exact = candidates.filter((v) => haystack.includes(norm(String(v))));
  if (exact.length > 0) return exact.sort((a, b) => haystack.indexOf(norm(String(a))) - haystack.indexOf(norm(String(b))))[0];
  const words = haystack.trim().split(" ");
  // The same word, one that shares its first five letters ("counseling", "counselor"), or one built on a short value ("rental" on "rent").
  const near = (word: string, part: string) =>
    word === part ||
    (word.length >= ENUM_PREFIX && part.length >= ENUM_PREFIX && word.slice(0, ENUM_PREFIX) === part.slice(0, ENUM_PREFIX)) ||
    (part.length >= 4 && word.startsWith(part));
  const close = candidates.filter((v) => {
    const parts = norm(String(v)).trim().split(" ");
    return parts.every((part) => words.some((w) => near(w, part)));
  });
  return close.length === 1 ? close[0] : undefined;
}

/** Letters two words must share at the start to name the same enum value. */
const ENUM_PREFIX = 5;

function accepts(schema: JsonObject, value: number, integer: boolean): boolean {
  if (integer && !Number.isInteger(value)) return false;
  if (typeof schema["minimum"] === "number" && value < schema["minimum"]) return false;
  if (typeof schema["maximum"] === "number" && value > schema["maximum"]) return false;
  return true;
}
