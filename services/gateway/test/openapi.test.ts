import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { buildApp } from "../src/app.js";
import { localAuthenticator } from "../src/shared/auth.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";

const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth: localAuthenticator };

interface Media {
  schema?: object;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  externalDocs?: { url?: string };
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: { content: Record<string, Media> };
}

/** The OpenAPI document of an app on in-memory deps, and each operation with its method and path. */
async function documented() {
  const app = buildApp(new InMemoryGatewayDeps(), LIMITS);
  const res = await app.inject({ method: "GET", url: "/docs/json" });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  return { app, doc, operations };
}

/** A media type's examples: its `example`, or the values of its named `examples`. */
const examplesOf = (media: Media): unknown[] =>
  media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((named) => named.value);

/** An operation's URL with each path parameter filled by its example. */
function urlOf(path: string, op: Operation): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const example = op.parameters?.find((p) => p.in === "path" && p.name === name)?.example;
    assert.equal(typeof example, "string", `${path}: the path parameter ${name} has an example`);
    return encodeURIComponent(example as string);
  });
}

/** A JSON pointer token (RFC 6901). */
const pointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");

/** The doors that speak other protocols, and the specification each links. */
const AGENT_DOORS: Record<string, RegExp> = {
  "/mcp": /^https:\/\/modelcontextprotocol\.io\/specification\/.*transports/,
  "/v1/chat/completions": /^https:\/\/platform\.openai\.com\/docs\/api-reference\/chat/,
  "/v1/messages": /^https:\/\/docs\.anthropic\.com\/en\/api\/messages/,
  "/v1/responses": /^https:\/\/platform\.openai\.com\/docs\/api-reference\/responses/,
};

describe("gateway openapi - request examples", () => {
  it("gateway openapi - every request body has an example, and its own schema accepts it", async () => {
    const { doc, operations } = await documented();
    // The whole document as one schema, so a body's $refs into components resolve.
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    ajv.addSchema(doc, "openapi");
    const withBody = operations.filter(({ op }) => op.requestBody);
    const named = withBody.map(({ method, path }) => `${method} ${path}`);
    for (const door of ["POST /v1/packets", "POST /v1/route", "POST /v1/calls", "POST /mcp", "POST /v1/messages"]) assert.ok(named.includes(door), `${door} takes a body`);
    for (const { method, path, op } of withBody) {
      for (const [type, media] of Object.entries(op.requestBody!.content)) {
        const examples = examplesOf(media);
        assert.ok(examples.length > 0, `${method} ${path} (${type}) has a request example`);
        const validate = ajv.getSchema(`openapi#/paths/${pointer(path)}/${method.toLowerCase()}/requestBody/content/${pointer(type)}/schema`);
        assert.ok(validate, `${method} ${path} has a body schema`);
        for (const example of examples) assert.ok(validate(example), `${method} ${path}'s example: ${ajv.errorsText(validate.errors)}`);
      }
    }
  });

  it("gateway openapi - the agent doors are listed, tagged, described and linked to their protocols", async () => {
    const { doc } = await documented();
    assert.ok((doc.tags as { name: string }[]).some((tag) => tag.name === "agent doors"));
    for (const [path, spec] of Object.entries(AGENT_DOORS)) {
      const op = doc.paths[path]?.post as Operation | undefined;
      assert.ok(op, `POST ${path} is in the document`);
      assert.ok(op.summary && op.description, `POST ${path} says what Switchyard does there`);
      assert.match(String(op.externalDocs?.url), spec, `POST ${path} links its protocol`);
      assert.deepEqual(op.tags, ["agent doors"]);
      assert.ok(op.requestBody, `POST ${path} shows a request`);
    }
    assert.doesNotMatch(JSON.stringify(doc), /seed 0\d\d/i, "no internal wording");
  });

  it("gateway openapi - each example, sent to its route, is not refused as invalid", async () => {
    const { app, operations } = await documented();
    const answered = new Map<string, number>();
    for (const { method, path, op } of operations) {
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        for (const example of examplesOf(media)) {
          const res = await app.inject({
            method: method as "POST",
            url: urlOf(path, op),
            // as a JSON client asks, /mcp included (test/swagger-ui.test.ts presses Try it out itself)
            headers: { "content-type": "application/json", accept: "application/json" },
            payload: JSON.stringify(example),
          });
          assert.notEqual(res.statusCode, 400, `${method} ${path}: ${res.body}`);
          answered.set(`${method} ${path}`, res.statusCode);
        }
      }
    }
    // Run (the in-memory fleet finishes at once) or routed, not only let through.
    assert.equal(answered.get("POST /v1/packets"), 200);
    assert.equal(answered.get("POST /v1/route"), 200);
    assert.equal(answered.get("POST /v1/calls"), 404, "checked, then not found: the in-memory catalog has no filesystem.list_directory");
    // The model doors check the body before they look for an upstream.
    for (const door of ["/v1/chat/completions", "/v1/messages", "/v1/responses"]) assert.equal(answered.get(`POST ${door}`), 503);
    assert.equal(answered.get("POST /mcp"), 200);
  });
});
