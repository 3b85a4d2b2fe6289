import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { scanMessage } from "@switchyard/request-text";
import { extractArguments } from "../src/extract-args.js";
import { findValues } from "../src/find-values.js";

/** A schema whose every listed property is a required string unless given otherwise. */
function schema(properties: Record<string, JsonObject | string>, required = Object.keys(properties)): JsonObject {
  const props: JsonObject = {};
  for (const [name, spec] of Object.entries(properties)) props[name] = typeof spec === "string" ? { type: "string", description: spec } : spec;
  return { type: "object", properties: props, required };
}

const trains = schema({
  _from: "The departure city, in the format 'City, State'.",
  to: "The destination city, in the format 'City, State'.",
  date_of_journey: "The date of the journey, in the format 'MM/DD/YYYY'.",
});

const rows: { name: string; schema: JsonObject; message: string; args: JsonObject; missing?: string[] }[] = [
  {
    name: "a trip's start and end by 'from' and 'to', and its date",
    schema: trains,
    message: "Find trains from Sacramento to Fresno on the 10th of March 2023",
    args: { _from: "Sacramento", to: "Fresno", date_of_journey: "the 10th of March 2023" },
  },
  {
    name: "places written 'City, ST'",
    schema: trains,
    message: "I need a train from Berkeley, CA to Portland, OR on 04/23/2023.",
    args: { _from: "Berkeley, CA", to: "Portland, OR", date_of_journey: "04/23/2023" },
  },
  {
    name: "nothing for the start of a trip the request does not name",
    schema: trains,
    message: "Can you find a train headed to Washington, DC on March 13th?",
    args: { to: "Washington, DC", date_of_journey: "March 13th" },
    missing: ["_from"],
  },
  {
    name: "a city after 'in', not a date",
    schema: schema({ city: "The name of the city." }),
    message: "What's the weather like in Seattle tomorrow?",
    args: { city: "Seattle" },
  },
  {
    name: "no city when the request names none",
    schema: schema({ city: "The name of the city." }),
    message: "I need to check the weather for tomorrow please.",
    args: {},
    missing: ["city"],
  },
  {
    name: "numbers in the order the schema asks for them",
    schema: schema({ base: { type: "integer" }, exponent: { type: "integer" } }),
    message: "Calculate the power of 7 raised to 3",
    args: { base: 7, exponent: 3 },
  },
  {
    name: "a number next to the property's own word first",
    schema: schema({ bedrooms: { type: "integer" }, price: { type: "number" } }),
    message: "A house for $450,000 with 3 bedrooms",
    args: { bedrooms: 3, price: 450000 },
  },
  {
    name: "an enum value the request names in other words",
    schema: schema({ type: { type: "string", enum: ["Psychologist", "Family Counselor", "Psychiatrist"] } }),
    message: "Find me a therapist specialised in family counseling",
    args: { type: "Family Counselor" },
  },
  {
    name: "identifiers after the words that name them",
    schema: schema({ project: "The project.", component: "The component.", vulnerability: "The vulnerability." }),
    message: "Give me an analysis trail for my project id SUPERFANCY with component UUID AB1010CD and vulnerability ef903ac-893-f00",
    args: { project: "SUPERFANCY", component: "AB1010CD", vulnerability: "ef903ac-893-f00" },
  },
  {
    name: "a bracketed list for an array of numbers",
    schema: schema({ vector1: { type: "array", items: { type: "number" } }, vector2: { type: "array", items: { type: "number" } } }),
    message: "Cosine similarity between vector A [3, 2, 1] and vector B [1, 2, 3]",
    args: { vector1: [3, 2, 1], vector2: [1, 2, 3] },
  },
  {
    name: "a required argument's default when the request says nothing",
    schema: schema({ unit: { type: "string", enum: ["celsius", "fahrenheit"], default: "celsius" } }),
    message: "How warm is it?",
    args: { unit: "celsius" },
  },
  {
    name: "nothing for a path, which is never guessed",
    schema: schema({ path: "The file to read." }),
    message: "Read Alice's notes from Monday",
    args: {},
    missing: ["path"],
  },
];

describe("selector - fill-required", () => {
  for (const row of rows) {
    it(`selector - fills ${row.name}`, () => {
      const result = extractArguments(row.message, row.schema);
      assert.deepEqual(result.args, row.args);
      assert.deepEqual(result.missing, row.missing ?? []);
    });
  }

  it("selector - finds values by kind, a whole-request quote aside", () => {
    const found = findValues(scanMessage('"Book a table at Balthazar in New York, NY on 2023-10-06 at 8 pm for 4 people, my email is a@b.co"'));
    const kinds = found.map((v) => `${v.kind}:${v.value}`);
    assert.deepEqual(kinds, [
      "name:Balthazar",
      "place:New York, NY",
      "date:2023-10-06",
      "time:8 pm",
      "number:4",
      "email:a@b.co",
    ]);
  });
});
