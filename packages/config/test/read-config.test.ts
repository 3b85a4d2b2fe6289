import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, parseList, readConfig } from "../src/read-config.js";
import type { ConfigSchema } from "../src/read-config.js";

const schema: ConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    HTTP_PORT: { type: "integer", minimum: 1, maximum: 65535, default: 8080 },
    ALLOW_WRITE_TOOLS: { type: "boolean", default: false },
    MODE: { type: "string", enum: ["topk", "threshold"], default: "topk" },
  },
};

describe("config", () => {
  it("config - applies defaults for unset variables", () => {
    assert.deepEqual(readConfig(schema, {}), { HTTP_PORT: 8080, ALLOW_WRITE_TOOLS: false, MODE: "topk" });
  });

  it("config - coerces numbers and booleans from strings and ignores the rest of the environment", () => {
    const config = readConfig(schema, { HTTP_PORT: "9090", ALLOW_WRITE_TOOLS: "true", PATH: "/bin" });
    assert.deepEqual(config, { HTTP_PORT: 9090, ALLOW_WRITE_TOOLS: true, MODE: "topk" });
  });

  it("config - a bad value names the variable", () => {
    assert.throws(
      () => readConfig(schema, { HTTP_PORT: "eighty" }),
      (error: unknown) => error instanceof ConfigError && error.variable === "HTTP_PORT" && /eighty/.test(error.message),
    );
    assert.throws(
      () => readConfig(schema, { MODE: "fastest" }),
      (error: unknown) => error instanceof ConfigError && error.variable === "MODE",
    );
  });

  it("config - parseList splits comma-separated settings", () => {
    assert.deepEqual(parseList(" a, b,,c "), ["a", "b", "c"]);
    assert.deepEqual(parseList(undefined), []);
  });
});
