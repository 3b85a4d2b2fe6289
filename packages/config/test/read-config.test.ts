import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Type } from "typebox";
import { ConfigError, defaultsOf, parseList, readConfig } from "../src/read-config.js";

const schema = Type.Object(
  {
    HTTP_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 8080 }),
    ALLOW_WRITE_TOOLS: Type.Boolean({ default: false }),
    MODE: Type.Enum(["topk", "threshold"], { default: "topk" }),
    API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

describe("config", () => {
  it("config - applies defaults for unset variables; defaultsOf is what an empty environment gives", () => {
    assert.deepEqual(readConfig(schema, {}), { HTTP_PORT: 8080, ALLOW_WRITE_TOOLS: false, MODE: "topk" });
    assert.deepEqual(defaultsOf(schema), readConfig(schema, {}));
    assert.equal(readConfig(schema, { API_KEY: "k" }).API_KEY, "k", "typed by the schema: no cast");
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
