import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import {
  assertInert,
  assertKeyHidden,
  browserSkipReason,
  heading,
  hostileServerFiles,
  navigateTo,
  openConsole,
  pressWithKeyboard,
  screenshotForDocs,
  seriousViolations,
  signIn,
  startConsoleFleet,
  XSS,
} from "./console-browser.js";
import type { ConsoleTab } from "./console-browser.js";
import type { TestFleet } from "./harness.js";

/**
 * The console in Chromium, as the person in the loop uses it, on a fleet with API keys for two
 * tenants, write tools allowed (each call held for approval) and the hostile test server for
 * tenant-a alone: its lookup_weather description carries planted markup.
 */
const skip = browserSkipReason();
const CONFIG = fileURLToPath(new URL("fixtures/console.yaml", import.meta.url));
const KEYS = { a: "console-tenant-a-key-0123456789", b: "console-tenant-b-key-0123456789" };
const as = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });

describe("console approvals - the inbox, packets and tenants in a real browser", { skip }, () => {
  let t: TestFleet;
  let browser: Browser;
  let stop: (() => Promise<void>) | undefined;
  let tabA: ConsoleTab;
  const hostile = hostileServerFiles(`Look up the weather forecast for a city ${XSS}`);

  before(async () => {
    ({ t, browser, close: stop } = await startConsoleFleet({
      env: {
        API_KEYS: `${KEYS.a}:tenant-a,${KEYS.b}:tenant-b`,
        SWITCHYARD_CONFIG: CONFIG,
        HOSTILE_DESCRIPTION_FILE: hostile.description,
        HOSTILE_CALLS_FILE: hostile.calls,
      },
      serviceEnv: { reviewer: { ALLOW_WRITE_TOOLS: "true" } },
    }));
    tabA = await signIn(browser, t.url, KEYS.a);
  });

  after(async () => {
    await stop?.();
    hostile.remove();
  });

  /** Submits a request as `who` and waits until the pipeline holds or ends it. */
  const submit = async (who: keyof typeof KEYS, message: string): Promise<any> => {
    const reply = await t.post("/v1/packets", { message, wait: true }, as(who));
    assert.equal(reply.status, 200, reply.text);
    return reply.json;
  };
  const packet = async (who: keyof typeof KEYS, id: string) => (await t.get(`/v1/packets/${id}`, as(who))).json;
  /** The inbox item that shows `text` (an item's request words and arguments name its file). */
  const inboxItem = (page: Page, text: string) => page.getByRole("article").filter({ hasText: text });
  const failureNotes = (tab: ConsoleTab) => `page errors: ${tab.errors.join("\n") || "none"}`;

  it("console approvals - a key signs in through the form; it is in no URL and in no cookie a script can read", async () => {
    const wrong = await openConsole(browser, t.url);
    try {
      await wrong.page.getByLabel("API key").fill("not-a-key-of-this-gateway-0123");
      await wrong.page.getByRole("button", { name: "Sign in" }).click();
      await wrong.page.getByRole("alert").waitFor();
      await wrong.page.getByLabel("API key").waitFor();

      const b = await signIn(browser, t.url, KEYS.b);
      await assertKeyHidden(b, KEYS.b);
      await b.page.getByRole("navigation").getByRole("button", { name: "Sign out" }).or(b.page.getByRole("link", { name: "Sign out" })).click();
      await b.page.getByLabel("API key").waitFor();
      await b.page.goto("/console/packets");
      await b.page.getByLabel("API key").waitFor();
      assert.equal((await b.context.cookies()).some((cookie) => cookie.value.includes(KEYS.b)), false, "signing out clears the cookie");
      await b.close();
    } finally {
      await wrong.close();
    }
    await assertKeyHidden(tabA, KEYS.a);
  });

  it("console approvals - a held write appears without a reload, is approved with Tab and Enter alone, and runs", async () => {
    const { page } = tabA;
    await navigateTo(page, "Approvals");
    await page.evaluate("window.__sameDocument = true");

    const held = await submit("a", "write 'approved from the console' to the file notes/console-approved.md");
    assert.equal(held.state, "AWAITING_APPROVAL", held.stateReason);
    const item = inboxItem(page, "notes/console-approved.md");
    await item.waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate<boolean | undefined>("window.__sameDocument"), true, "the page was reloaded");
    for (const shown of ["filesystem.write_file", held.toolRouting.approval.callHash, "approved from the console"]) {
      assert.ok((await item.textContent())?.includes(shown), `the item shows ${shown}`);
    }
    assert.ok(await item.locator("pre").filter({ hasText: "notes/console-approved.md" }).count(), "the arguments as JSON in a <pre>");
    assert.equal(existsSync(join(t.workspace, "notes/console-approved.md")), false, "nothing is written before approval");
    await screenshotForDocs(page, "console-inbox");

    await pressWithKeyboard(page, item.getByRole("button", { name: "Approve" }));
    await item.getByRole("status").filter({ hasText: "COMPLETED" }).waitFor({ timeout: 60_000 });
    assert.equal(readFileSync(join(t.workspace, "notes/console-approved.md"), "utf8"), "approved from the console");
    const done = await packet("a", held.header.packetId);
    assert.deepEqual([done.state, done.toolRouting.executionStatus], ["COMPLETED", "EXECUTED"], failureNotes(tabA));
  });

  it("console approvals - a denied write asks for a reason, ends USER_DENIED and writes nothing", async () => {
    const { page } = tabA;
    await navigateTo(page, "Approvals");
    const held = await submit("a", "write 'never' to the file notes/console-denied.md");
    const item = inboxItem(page, "notes/console-denied.md");
    await item.getByRole("button", { name: "Deny" }).click({ timeout: 30_000 });
    await item.getByLabel("Reason").fill("not on a Friday");
    await item.getByRole("button", { name: "Send denial" }).click();
    await item.getByRole("status").filter({ hasText: "not on a Friday" }).waitFor({ timeout: 60_000 });
    const denied = await packet("a", held.header.packetId);
    assert.equal(denied.toolRouting.executionStatus, "USER_DENIED");
    assert.match(denied.stateReason, /not on a Friday/);
    assert.equal(existsSync(join(t.workspace, "notes/console-denied.md")), false);
  });

  it("console approvals - tenant B sees none of tenant A's packets, approvals or tools", async () => {
    const heldForA = await submit("a", "write 'for a only' to the file notes/tenant-a-secret.md");
    const heldForB = await submit("b", "write 'for b' to the file notes/tenant-b-own.md");
    const b = await signIn(browser, t.url, KEYS.b);
    try {
      await inboxItem(b.page, "notes/tenant-b-own.md").waitFor({ timeout: 30_000 });
      assert.equal(await inboxItem(b.page, "notes/tenant-a-secret.md").count(), 0, "A's held call in B's inbox");

      await navigateTo(b.page, "Packets");
      await b.page.locator(`a[href="/console/packets/${heldForB.header.packetId}"]`).first().waitFor();
      assert.equal(await b.page.locator(`a[href="/console/packets/${heldForA.header.packetId}"]`).count(), 0, "A's packet in B's list");
      assert.equal((await b.page.locator("main").textContent())?.includes("tenant-a-secret"), false);

      const answer = b.page.waitForResponse((response) => response.url().endsWith(`/v1/packets/${heldForA.header.packetId}`));
      await b.page.goto(`/console/packets/${heldForA.header.packetId}`);
      assert.equal((await answer).status(), 404);
      await b.page.getByRole("alert").waitFor();
      assert.equal((await b.page.locator("body").textContent())?.includes("tenant-a-secret"), false, "A's packet shown to B");

      await b.page.goto("/console/catalog");
      await b.page.getByText("filesystem.write_file").first().waitFor();
      assert.equal((await b.page.locator("main").textContent())?.includes("hostile."), false, "tenant-a's tools shown to B");
      await navigateTo(tabA.page, "Catalog");
      await tabA.page.getByText("hostile.lookup_weather").first().waitFor();
    } finally {
      await b.close();
    }
  });

  it("console approvals - markup in request text, a tool's description and a tool's output shows as text and never runs", async () => {
    const { page } = tabA;
    await navigateTo(page, "Approvals");
    const held = await submit("a", `write '${XSS}' to the file notes/planted.md`);
    assert.equal(held.state, "AWAITING_APPROVAL", held.stateReason);
    const item = inboxItem(page, "notes/planted.md");
    await item.waitFor({ timeout: 30_000 });
    assert.ok((await item.textContent())?.includes(XSS), "the request's markup is shown as text");
    await assertInert(page, "inbox");
    await page.goto(`/console/approvals/${held.header.packetId}`);
    await inboxItem(page, "notes/planted.md").waitFor();
    await assertInert(page, "approval page");

    assert.equal((await t.post(`/v1/packets/${held.header.packetId}/approve`, {}, as("a"))).status, 200);
    assert.equal(readFileSync(join(t.workspace, "notes/planted.md"), "utf8"), XSS);
    const read = await submit("a", "read the file notes/planted.md");
    assert.equal(read.toolRouting.executionStatus, "EXECUTED", read.stateReason);

    await page.goto(`/console/packets/${read.header.packetId}`);
    await heading(page, `Packet ${read.header.packetId}`).waitFor();
    await page.locator("pre").filter({ hasText: XSS }).first().waitFor();
    await assertInert(page, "packet page (tool output)");
    await navigateTo(page, "Packets");
    await page.locator(`a[href="/console/packets/${read.header.packetId}"]`).first().waitFor();
    await assertInert(page, "packets list");

    await navigateTo(page, "Catalog");
    await page.getByText(`weather forecast for a city ${XSS}`).first().waitFor();
    await assertInert(page, "catalog (tool description)");
    await navigateTo(page, "Playground");
    await page.getByLabel("Message").fill("look up the weather forecast for the city Paris");
    await page.getByRole("button", { name: "Route" }).click();
    await page.getByText("hostile.lookup_weather").first().waitFor();
    await assertInert(page, "playground");
  });

  it("console approvals - a packet page shows hops, candidates, selection, review, reflection log and result", async () => {
    const listed = await submit("a", "list the files in notes");
    assert.equal(listed.toolRouting.executionStatus, "EXECUTED", listed.stateReason);
    const { page } = tabA;
    await page.goto(`/console/packets/${listed.header.packetId}`);
    await heading(page, `Packet ${listed.header.packetId}`).waitFor();
    for (const section of ["Hops", "Candidates", "Selection", "Review", "Reflection log", "Result"]) {
      await page.getByRole("heading", { name: section, exact: true }).waitFor();
    }
    await page.locator("pre").filter({ hasText: "[FILE]" }).first().waitFor();
    await screenshotForDocs(page, "console-packet");
  });

  it("console approvals - axe-core finds no serious or critical violation on any page", async () => {
    const held = await submit("a", "write 'axe' to the file notes/axe.md");
    const { page } = tabA;
    const found: string[] = [];
    await navigateTo(page, "Approvals");
    await inboxItem(page, "notes/axe.md").waitFor({ timeout: 30_000 });
    found.push(...(await seriousViolations(page)));
    await page.goto(`/console/approvals/${held.header.packetId}`);
    await inboxItem(page, "notes/axe.md").waitFor();
    found.push(...(await seriousViolations(page)));
    await navigateTo(page, "Packets");
    await page.locator(`a[href="/console/packets/${held.header.packetId}"]`).first().click();
    await heading(page, `Packet ${held.header.packetId}`).waitFor();
    await page.getByRole("heading", { name: "Result", exact: true }).waitFor();
    found.push(...(await seriousViolations(page)));
    await navigateTo(page, "Catalog");
    await page.getByText("filesystem.write_file").first().waitFor();
    found.push(...(await seriousViolations(page)));
    await navigateTo(page, "Playground");
    await page.getByLabel("Message").fill("write 'x' to the file notes/x.md");
    await page.getByRole("button", { name: "Route" }).click();
    await page.getByText("filesystem.write_file").first().waitFor();
    found.push(...(await seriousViolations(page)));
    await navigateTo(page, "Fleet");
    await page.getByText("gateway").first().waitFor();
    found.push(...(await seriousViolations(page)));
    const login = await openConsole(browser, t.url);
    await login.page.getByLabel("API key").waitFor();
    found.push(...(await seriousViolations(login.page)));
    await login.close();
    assert.deepEqual(found, []);
    await assertKeyHidden(tabA, KEYS.a);
  });
});

