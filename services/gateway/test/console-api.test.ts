import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InjectOptions } from "fastify";
import { buildApp } from "../src/app.js";
import type { AppOptions } from "../src/app.js";
import { apiKeyAuthenticator, localAuthenticator } from "../src/shared/auth.js";
import { throttleAuthFailures } from "../src/shared/auth-throttle.js";
import { InMemoryGatewayDeps, NEEDS_APPROVAL } from "./in-memory-deps.js";

const KEY_A = "console-key-a-0123456789";
const KEY_B = "console-key-b-0123456789";
const LIMITS = { bodyLimitBytes: 65536, maxMessageChars: 1000, maxHistoryTurns: 3 };
const AS_A = { authorization: `Bearer ${KEY_A}` };
const AS_B = { authorization: `Bearer ${KEY_B}` };
const CSP = "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';frame-ancestors 'none';base-uri 'none';form-action 'self'";

/** A built console as small as it gets: index.html and one hashed asset. */
function tinyConsole(): string {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-console-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1a2b.js"></script>');
  writeFileSync(join(dir, "assets", "app-1a2b.js"), "export {};\n");
  return dir;
}

function setup(options: Partial<AppOptions> = {}) {
  const deps = new InMemoryGatewayDeps();
  const auth = throttleAuthFailures(apiKeyAuthenticator(new Map([[KEY_A, "tenant-a"], [KEY_B, "tenant-b"]])), { max: 3, windowMs: 60_000 });
  return { deps, app: buildApp(deps, { ...LIMITS, auth, publicUrl: () => "https://switchyard.example.com/", ...options }) };
}

const post = (url: string, body: unknown, headers: Record<string, string> = AS_A): InjectOptions => ({
  method: "POST",
  url,
  headers: { "content-type": "application/json", ...headers },
  payload: JSON.stringify(body),
});

/** The value of the console's cookie a Set-Cookie header sets. */
function sessionCookie(setCookie: string | string[] | undefined): string {
  const header = [setCookie ?? []].flat().find((line) => line.startsWith("switchyard_console="));
  assert.ok(header, "a switchyard_console cookie is set");
  return header;
}

describe("gateway console api - packets, events and the fleet, by tenant", () => {
  const { deps, app } = setup();
  const ids: Record<string, string> = {};

  before(async () => {
    for (const [name, message, headers] of [
      ["a1", "first request of a", AS_A],
      ["b1", "a request of b", AS_B],
      ["a2", NEEDS_APPROVAL, AS_A],
      ["a3", "third request of a", AS_A],
    ] as const) {
      const reply = await app.inject(post("/v1/packets", { message }, headers));
      assert.equal(reply.statusCode, 200, reply.body);
      ids[name] = reply.json().header.packetId;
      // Creation times a millisecond apart at least, so newest-first is one order.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  after(() => app.close());

  const list = async (query: string, headers = AS_A) => {
    const reply = await app.inject({ method: "GET", url: `/v1/packets${query}`, headers });
    assert.equal(reply.statusCode, 200, reply.body);
    return (reply.json().packets as { header: { packetId: string; createdAt: string } }[]).map((p) => p.header);
  };

  it("gateway console api - a tenant lists only its own packets, newest first", async () => {
    assert.deepEqual((await list("")).map((h) => h.packetId), [ids["a3"], ids["a2"], ids["a1"]]);
    assert.deepEqual((await list("", AS_B)).map((h) => h.packetId), [ids["b1"]]);
  });

  it("gateway console api - the list filters by state (repeated or comma-separated), words and session, and pages by before", async () => {
    assert.deepEqual((await list("?state=AWAITING_APPROVAL")).map((h) => h.packetId), [ids["a2"]]);
    assert.deepEqual((await list("?state=AWAITING_APPROVAL&state=AWAITING_USER")).map((h) => h.packetId), [ids["a2"]]);
    assert.deepEqual((await list("?state=AWAITING_USER,COMPLETED")).map((h) => h.packetId), [ids["a3"], ids["a1"]]);
    assert.deepEqual((await list("?query=THIRD")).map((h) => h.packetId), [ids["a3"]]);
    assert.deepEqual((await list(`?sessionId=${ids["a1"]}`)).map((h) => h.packetId), [ids["a1"]]);
    assert.deepEqual((await list("?query=request", AS_A)).map((h) => h.packetId), [ids["a3"], ids["a1"]]);
    const first = await list("?limit=2");
    assert.deepEqual(first.map((h) => h.packetId), [ids["a3"], ids["a2"]]);
    const next = await list(`?limit=2&before=${encodeURIComponent(first.at(-1)!.createdAt)}`);
    assert.deepEqual(next.map((h) => h.packetId), [ids["a1"]]);
  });

  it("gateway console api - a bad query value is a 400 naming the field", async () => {
    for (const [query, field] of [
      ["?state=SLEEPING", "state/0"],
      ["?limit=0", "limit"],
      ["?limit=201", "limit"],
      ["?limit=ten", "limit"],
      ["?before=yesterday", "before"],
      ["?status=fine", "status"],
      ["?colour=red", "colour"],
    ]) {
      const reply = await app.inject({ method: "GET", url: `/v1/packets${query}`, headers: AS_A });
      assert.equal(reply.statusCode, 400, `${query}: ${reply.body}`);
      assert.equal(reply.json().field, field, query);
    }
  });

  it("gateway console api - the fleet counts the caller's packets only and names each service", async () => {
    deps.fleet = [{ name: "gateway", instances: 1, down: [] }, { name: "selector", instances: 2, down: ["selection model"] }];
    const a = (await app.inject({ method: "GET", url: "/v1/fleet", headers: AS_A })).json();
    assert.equal(a.approvalsWaiting, 1);
    assert.equal(a.packetsInFlight, 0);
    assert.equal(a.status, "unavailable", "intent and the other stages have no replica");
    assert.deepEqual(a.services.find((s: { name: string }) => s.name === "selector"), { name: "selector", instances: 2, ready: true, down: ["selection model"] });
    assert.equal(a.services.find((s: { name: string }) => s.name === "intent").ready, false);
    const b = (await app.inject({ method: "GET", url: "/v1/fleet", headers: AS_B })).json();
    assert.equal(b.approvalsWaiting, 0);
  });

  it("gateway console api - the event stream sends the tenant's own packets as they are stored, and stops when the client goes", async () => {
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const abort = new AbortController();
    const response = await fetch(`${url}/v1/packets/events`, { headers: AS_A, signal: abort.signal });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(deps.following, 1);
    await app.inject(post("/v1/packets", { message: "b's secret request" }, AS_B));
    const held = (await app.inject(post("/v1/packets", { message: NEEDS_APPROVAL }, AS_A))).json();
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    const [event, data] = text.split("\n");
    assert.equal(event, "event: packet");
    assert.equal(JSON.parse(data!.slice("data: ".length)).header.packetId, held.header.packetId, "the first event is a's packet, not b's");
    assert.doesNotMatch(text, /secret/);
    abort.abort();
    for (let i = 0; i < 50 && deps.following > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(deps.following, 0, "the stream stopped following the bucket");
  });
});

describe("gateway console api - a held packet links its approval page", () => {
  const { app } = setup();
  after(() => app.close());

  it("gateway console api - POST /v1/calls and /v1/packets answer a held packet with a Link to its console page", async () => {
    const call = await app.inject(post("/v1/calls", { tool: "filesystem.write_file", arguments: { path: "a.md" } }));
    assert.equal(call.statusCode, 200, call.body);
    assert.equal(call.headers["link"], `<https://switchyard.example.com/console/approvals/${call.json().header.packetId}>; rel="approval"`);
    const submitted = await app.inject(post("/v1/packets", { message: NEEDS_APPROVAL }));
    assert.equal(submitted.headers["link"], `<https://switchyard.example.com/console/approvals/${submitted.json().header.packetId}>; rel="approval"`);
    const done = await app.inject(post("/v1/packets", { message: "nothing to hold" }));
    assert.equal(done.headers["link"], undefined);
  });
});

describe("gateway console api - the session cookie", () => {
  const { app } = setup();
  after(() => app.close());

  const signIn = async (apiKey: string, headers: Record<string, string> = { "x-switchyard-console": "1" }) =>
    app.inject(post("/console/session", { apiKey }, headers));

  it("gateway console api - a sign-in sets the key in an HttpOnly, SameSite=Strict cookie, Secure over https", async () => {
    const reply = await signIn(KEY_A);
    assert.equal(reply.statusCode, 204, reply.body);
    const cookie = sessionCookie(reply.headers["set-cookie"]);
    assert.equal(cookie, `switchyard_console=${KEY_A}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict`);
    const secure = await signIn(KEY_A, { "x-switchyard-console": "1", "x-forwarded-proto": "https" });
    assert.match(sessionCookie(secure.headers["set-cookie"]), /; Secure/);

    const session = await app.inject({ method: "GET", url: "/console/session", cookies: { switchyard_console: KEY_A } });
    assert.deepEqual(session.json(), { tenant: "tenant-a", admin: false, keysRequired: true, jaegerUiUrl: "" });
    const none = await app.inject({ method: "GET", url: "/console/session" });
    assert.equal(none.statusCode, 401);
    assert.match(none.json().message, /not signed in/);
  });

  it("gateway console api - a wrong key is 401, and counts toward the same throttle as the API's", async () => {
    const wrong = await app.inject({ ...post("/console/session", { apiKey: "not-the-key-0123456789" }, { "x-switchyard-console": "1" }), remoteAddress: "203.0.113.9" });
    assert.equal(wrong.statusCode, 401);
    for (let i = 0; i < 2; i++) await app.inject({ method: "GET", url: "/v1/packets", headers: { authorization: "Bearer nope-nope-nope-nope" }, remoteAddress: "203.0.113.9" });
    const throttled = await app.inject({ ...post("/console/session", { apiKey: KEY_A }, { "x-switchyard-console": "1" }), remoteAddress: "203.0.113.9" });
    assert.equal(throttled.statusCode, 429);
  });

  it("gateway console api - the cookie is a bearer key on /v1; a change needs the console header and this origin", async () => {
    const cookies = { switchyard_console: KEY_A };
    const listed = await app.inject({ method: "GET", url: "/v1/packets", cookies });
    assert.equal(listed.statusCode, 200, listed.body);
    const body = { message: "over the cookie" };

    const forged = await app.inject({ ...post("/v1/packets", body, {}), cookies });
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.json().field, "x-switchyard-console");
    assert.match(forged.json().message, /x-switchyard-console: 1/);

    const elsewhere = await app.inject({ ...post("/v1/packets", body, { "x-switchyard-console": "1", origin: "https://evil.example" }), cookies });
    assert.equal(elsewhere.statusCode, 403);

    const own = await app.inject({ ...post("/v1/packets", body, { "x-switchyard-console": "1", origin: "http://localhost:80" }), cookies });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().header.tenant, "tenant-a");
    const noOrigin = await app.inject({ ...post("/v1/packets", body, { "x-switchyard-console": "1" }), cookies });
    assert.equal(noOrigin.statusCode, 200);

    const wrongKey = await app.inject({ method: "GET", url: "/v1/packets", cookies: { switchyard_console: "revoked-key-0123456789" } });
    assert.equal(wrongKey.statusCode, 401);
  });

  it("gateway console api - a sign-in from another site, or without the console's header, is refused; sign-out clears the cookie", async () => {
    assert.equal((await signIn(KEY_A, {})).statusCode, 403);
    assert.equal((await signIn(KEY_A, { "x-switchyard-console": "1", origin: "https://evil.example" })).statusCode, 403);
    const out = await app.inject({ method: "DELETE", url: "/console/session", headers: { "x-switchyard-console": "1" } });
    assert.equal(out.statusCode, 204);
    assert.match(sessionCookie(out.headers["set-cookie"]), /^switchyard_console=; Max-Age=0;/);
  });

  it("gateway console api - local mode needs no sign-in: the session is the local admin's", async () => {
    const local = setup({ auth: localAuthenticator, console: { jaegerUiUrl: "http://jaeger:16686" } });
    const session = await local.app.inject({ method: "GET", url: "/console/session" });
    assert.deepEqual(session.json(), { tenant: "local", admin: true, keysRequired: false, jaegerUiUrl: "http://jaeger:16686" });
    await local.app.close();
  });
});

describe("gateway console api - the console's files", () => {
  const dir = tinyConsole();
  const { app } = setup({ console: { assetsDir: dir } });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gateway console api - /console and its pages are index.html with a CSP that allows no inline script or style", async () => {
    for (const url of ["/console", "/console/", "/console/approvals/p-1", "/console/packets/p-1"]) {
      const page = await app.inject({ method: "GET", url });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.body, /<title>console<\/title>/, url);
      assert.equal(page.headers["content-security-policy"], CSP, url);
      assert.doesNotMatch(String(page.headers["content-security-policy"]), /unsafe-inline|unsafe-eval/);
      assert.equal(page.headers["cache-control"], "no-cache", url);
    }
  });

  it("gateway console api - assets are immutable; a missing one is a 404, not the page", async () => {
    const asset = await app.inject({ method: "GET", url: "/console/assets/app-1a2b.js" });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(asset.headers["content-security-policy"], CSP);
    assert.equal((await app.inject({ method: "GET", url: "/console/assets/gone-0000.js" })).statusCode, 404);
  });

  it("gateway console api - the API's JSON and Swagger UI at /docs keep their own headers", async () => {
    const docs = await app.inject({ method: "GET", url: "/docs/" });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger-ui/i);
    assert.equal(docs.headers["content-security-policy"], undefined);
    const spec = (await app.inject({ method: "GET", url: "/docs/json" })).json();
    for (const path of ["/v1/packets", "/v1/packets/events", "/v1/fleet", "/console/session"]) assert.ok(spec.paths[path], path);
    const json = await app.inject({ method: "GET", url: "/v1/packets", headers: AS_A });
    assert.equal(json.headers["content-security-policy"], undefined);
  });

  it("gateway console api - an unbuilt console says how to build it", async () => {
    const unbuilt = setup();
    const reply = await unbuilt.app.inject({ method: "GET", url: "/console" });
    assert.equal(reply.statusCode, 503);
    assert.match(reply.json().message, /pnpm build/);
    await unbuilt.app.close();
  });
});
