import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import { ToolDefinitionSchema } from "@switchyard/packet";

/** A tool as a line of a `.tools.jsonl` file. */
export interface ToolJson {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

/** A tiny benchmark in the shared format: four tools, cases with and without an expected tool, BFCL-style candidates. */
export const TINY_TOOLS: ToolJson[] = [
  {
    name: "weather_forecast",
    description: "Weather forecast for a city: temperature, rain and wind for the next days.",
    inputSchema: { type: "object", properties: { city: { type: "string", description: "City name" } } },
  },
  { name: "stock_quote", description: "Current stock price for a ticker symbol.", inputSchema: {} },
  { name: "translate_text", description: "Translate text from one language to another.", inputSchema: {} },
  { name: "read_file", description: "Read the contents of a file from disk.", inputSchema: {} },
];

export const TINY_CASES: BenchCase[] = [
  { id: "1", query: "What will the weather be in Paris tomorrow?", expected: ["weather_forecast"], tags: ["plain"] },
  { id: "2", query: "Get me the stock price of ACME", expected: ["stock_quote"], tags: ["plain"] },
  { id: "3", query: "Translate 'good morning' into Spanish", expected: ["translate_text"] },
  { id: "4", query: "Read the file notes/todo.md and then translate it to French", expected: ["read_file", "translate_text"], tags: ["multi-step"] },
  { id: "5", query: "Tell me a joke about penguins", expected: [], tags: ["small-talk"] },
  // BFCL-style: the label holds within the candidates, where no tool fits
  { id: "6", query: "Will it rain in Oslo this weekend?", expected: [], candidates: ["stock_quote", "read_file"] },
];

export function tinyDataset(): BenchDataset {
  return {
    name: "tiny",
    tools: TINY_TOOLS.map((t) => create(ToolDefinitionSchema, t)),
    cases: TINY_CASES,
  };
}

/** Two tools with schemas (a required city; an amount and two currencies), for the pipeline and the selector. */
export const WEATHER_CURRENCY_TOOLS: ToolJson[] = [
  {
    name: "get_weather",
    description: "Current weather and forecast for a city.",
    inputSchema: {
      type: "object",
      properties: {
        city: { type: "string", description: "The city, such as 'Paris, France'." },
        unit: { type: "string", enum: ["celsius", "fahrenheit"], default: "celsius" },
      },
      required: ["city"],
    },
  },
  {
    name: "convert_currency",
    description: "Convert an amount of money from one currency to another.",
    inputSchema: {
      type: "object",
      properties: { amount: { type: "number" }, from_currency: { type: "string" }, to_currency: { type: "string" } },
      required: ["amount", "from_currency", "to_currency"],
    },
  },
];
