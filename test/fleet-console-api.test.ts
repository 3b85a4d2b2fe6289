import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const CONFIG = fileURLToPath(new URL("fixtures/tenant-catalog.yaml", import.meta.url));
const KEYS = { a: "console-fleet-a-0123456789", b: "console-fleet-b-0123456789" };
const bearer = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });

type Text = { type: string; text: string };
type Approval = { packetId: string; callHash: string; url: string; expiresAt: string };
const textOf = (result: unknown) => ((result as { content?: Text[] }).content ?? []).map((c) => c.text).join("\n");

/** The `data` of each `event: packet` the stream sends, read until `done` says enough. */
async function readEvents(body: ReadableStream<Uint8Array>, done: (packets: any[]) => boolean): Promise<any[]> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const packets: any[] = [];
  let buffered = "";
  while (!done(packets)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event.split("\n").find((line) => line.startsWith("data: "));
      if (event.startsWith("event: packet") && data) packets.push(JSON.parse(data.slice("data: ".length)));
    }
  }
  await reader.cancel();
  return packets;
}

describe("fleet console api - a held MCP write approved from the console's API", { skip }, () => {
  let t: TestFleet;
  let client: Client | undefined;

  before(async () => {
    t = await startTestFleet({
      env: { API_KEYS: `${KEYS.a}:tenant-a,${KEYS.b}:tenant-b`, SWITCHYARD_CONFIG: CONFIG },
      serviceEnv: { reviewer: { ALLOW_WRITE_TOOLS: "true" } },
    });
    await eventually(async () => {
      const tools = (await t.get("/v1/tools", bearer("a"))).json?.tools ?? [];
      return tools.some((tool: { name: string }) => tool.name === "filesystem.write_file") ? true : undefined;
    }, 60_000, "the catalog");
  });
  after(async () => {
    await client?.close();
    await t?.close();
  });

  it("fleet console api - the held write links the console in text and _meta; the stream delivers it; approved with the cookie it runs", async () => {
    // The console's sign-in: the key in a cookie.
    const signIn = await t.post("/console/session", { apiKey: KEYS.a }, { "x-switchyard-console": "1" });
    assert.equal(signIn.status, 204, signIn.text);
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const session = await t.get("/console/session", { cookie });
    assert.equal(session.json.tenant, "tenant-a");

    // The inbox: the list first, then the stream.
    const events = await fetch(`${t.url}/v1/packets/events`, { headers: { cookie } });
    assert.equal(events.status, 200);
    const otherTenant = await fetch(`${t.url}/v1/packets/events`, { headers: bearer("b") });

    client = new Client({ name: "fleet-console-api-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer("a") } }));
    const result = await client.callTool({ name: "filesystem_write_file", arguments: { path: "notes/from-console.md", content: "approved in the console" } });
    assert.equal(result.isError, false, textOf(result));
    const approval = (result._meta as Record<string, Approval>)["switchyard/approval"]!;
    const url = `${t.url}/console/approvals/${approval.packetId}`;
    assert.equal(approval.url, url);
    assert.match(approval.callHash, /^[0-9a-f]{64}$/);
    assert.ok(Date.parse(approval.expiresAt) > Date.now(), approval.expiresAt);
    assert.ok(textOf(result).startsWith(`Nothing ran yet: filesystem.write_file waits for a person's approval. Approve or deny it at ${url}`), textOf(result));
    assert.equal(existsSync(join(t.workspace, "notes/from-console.md")), false, "nothing is written before approval");

    const streamed = await readEvents(events.body!, (packets) => packets.some((p) => p.header.packetId === approval.packetId && p.state === "AWAITING_APPROVAL"));
    assert.ok(streamed.every((p) => p.header.tenant === "tenant-a"));
    const waiting = await t.get("/v1/packets?state=AWAITING_APPROVAL,AWAITING_USER", { cookie });
    assert.deepEqual(waiting.json.packets.map((p: { header: { packetId: string } }) => p.header.packetId), [approval.packetId]);
    const theirs = await t.get("/v1/packets", bearer("b"));
    assert.deepEqual(theirs.json.packets, [], "tenant-b lists none of tenant-a's packets");
    const fleet = await t.get("/v1/fleet", { cookie });
    assert.equal(fleet.json.approvalsWaiting, 1);
    assert.ok(fleet.json.services.every((s: { ready: boolean }) => s.ready), JSON.stringify(fleet.json.services));

    // Approve as the console does: the cookie and its header.
    const refused = await t.post(`/v1/packets/${approval.packetId}/approve`, { callHash: approval.callHash }, { cookie });
    assert.equal(refused.status, 403, "a cookie without the console's header changes nothing");
    const approved = await t.post(`/v1/packets/${approval.packetId}/approve`, { callHash: approval.callHash }, { cookie, "x-switchyard-console": "1", origin: t.url });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.toolRouting.executionStatus, "EXECUTED");
    assert.equal(readFileSync(join(t.workspace, "notes/from-console.md"), "utf8"), "approved in the console");
    const done = await t.get(`/v1/packets/${approval.packetId}`, bearer("a"));
    assert.equal(done.json.toolRouting.executionStatus, "EXECUTED");

    // Tenant-b's stream saw none of it.
    const seenByB = await Promise.race([
      readEvents(otherTenant.body!, (packets) => packets.length > 0),
      new Promise<any[]>((resolve) => setTimeout(() => resolve([]), 1000)),
    ]);
    assert.deepEqual(seenByB, []);
  });
});
