import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { browserSkipReason, startConsoleFleet } from "./console-browser.js";
import type { TestFleet } from "./harness.js";

const skip = browserSkipReason();
if (skip) console.log(`# SKIP Swagger UI in a real browser: ${skip}`);

describe("swagger ui - /docs in a real browser", { skip }, () => {
  let t: TestFleet;
  let browser: Browser;
  let stop: (() => Promise<void>) | undefined;

  before(async () => {
    ({ t, browser, close: stop } = await startConsoleFleet({}));
  });

  after(async () => {
    await stop?.();
  });

  /** Expands an operation of /docs, presses "Try it out" and "Execute" on its example, and answers what was sent and returned. */
  const tryItOut = async (page: Page, operationId: string, path: string) => {
    const operation = page.locator(`[id^="operations-"][id$="-${operationId}"]`);
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === path);
    await operation.getByRole("button", { name: "Execute" }).click();
    const response = await answered;
    return { accept: (await response.request().allHeaders())["accept"], status: response.status(), body: await response.text() };
  };

  it("swagger ui - Try it out on POST /mcp runs its example call, whatever Accept Swagger sends", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${t.url}/docs/`);
      const { accept, status, body } = await tryItOut(page, "mcp", "/mcp");
      assert.equal(status, 200, `Accept: ${accept}: ${body}`);
      const answer = JSON.parse(body) as { result: { _meta: { tool: string }; content: { text: string }[] } };
      assert.equal(answer.result._meta.tool, "filesystem.read_text_file");
      assert.match(answer.result.content[0]!.text, /# To do/);
    } finally {
      await page.close();
    }
  });
});
