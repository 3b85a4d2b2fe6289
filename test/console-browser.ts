import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import axe from "axe-core";
import type { AxeResults } from "axe-core";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet, TestFleetOptions } from "./harness.js";

/**
 * The console's browser tests drive Debian's Chromium (package chromium, installed by .ci/run)
 * with playwright-core, which never downloads a browser of its own.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Markup planted in request text, tool descriptions and tool output: it must show as text and never run. */
export const XSS = "<img src=x onerror=window.__xss=1>";

/** The size of every page and screenshot, so the README's images keep one size. */
const VIEWPORT = { width: 1280, height: 800 };
const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Why the console's browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  return fleetSkipReason() ?? (existsSync(CHROMIUM_PATH) ? undefined : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

/**
 * Headless Chromium as a closed network needs it: no background connections (update checks,
 * sync, QUIC probes), each of which this machine's network would refuse. Playwright gives
 * every launch a fresh profile and, as root, --no-sandbox.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A test fleet and Chromium, started side by side; `close` stops both. */
export async function startConsoleFleet(options: TestFleetOptions): Promise<{ t: TestFleet; browser: Browser; close(): Promise<void> }> {
  const [t, browser] = await Promise.all([startTestFleet(options), launchChromium()]);
  return {
    t,
    browser,
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}

/** One browser tab on the console and everything it asked for, to check where the key went. */
export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** Every URL the tab requested, pages, assets, API calls and the event stream alike. */
  requestedUrls: string[];
  /** Uncaught page errors and console errors, shown when an assertion fails. */
  errors: string[];
  close(): Promise<void>;
}

/** Opens a fresh context (no cookies) at the console's `path`. */
export async function openConsole(browser: Browser, gatewayUrl: string, path = "/console"): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: VIEWPORT, baseURL: gatewayUrl });
  const page = await context.newPage();
  const requestedUrls: string[] = [];
  const errors: string[] = [];
  context.on("request", (request) => requestedUrls.push(request.url()));
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(path);
  return { context, page, requestedUrls, errors, close: () => context.close() };
}

/** Opens the console and signs in with `apiKey` through the login form, as a person would. */
export async function signIn(browser: Browser, gatewayUrl: string, apiKey: string): Promise<ConsoleTab> {
  const tab = await openConsole(browser, gatewayUrl);
  await tab.page.getByLabel("API key").fill(apiKey);
  await tab.page.getByRole("button", { name: "Sign in" }).click();
  await heading(tab.page, "Approvals").waitFor();
  return tab;
}

/** The page's level-1 heading of this name. */
export function heading(page: Page, name: string | RegExp): Locator {
  return page.getByRole("heading", { name, level: 1 });
}

/** Goes to a console page by following its link in the navigation, as a person would (no reload). */
export async function navigateTo(page: Page, link: "Approvals" | "Packets" | "Catalog" | "Playground" | "Fleet"): Promise<void> {
  await page.getByRole("navigation").getByRole("link", { name: link }).click();
  await heading(page, link === "Playground" ? "Route playground" : link).waitFor();
}

/**
 * Moves the focus with Tab alone until it reaches `target`, then presses Enter: the action
 * works from the keyboard, in the page's own tab order.
 */
export async function pressWithKeyboard(page: Page, target: Locator, maxTabs = 200): Promise<void> {
  await target.waitFor();
  for (let tabs = 0; tabs < maxTabs; tabs++) {
    if (await target.evaluate((element: any) => element === element.ownerDocument.activeElement)) {
      await page.keyboard.press("Enter");
      return;
    }
    await page.keyboard.press("Tab");
  }
  assert.fail(`${maxTabs} presses of Tab never reached ${String(target)}`);
}

/** axe-core's serious and critical violations on the page as it is now, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern, so the
  // console's own CSP stays on while axe runs.
  await page.evaluate(axe.source);
  const { violations } = await page.evaluate<AxeResults>("axe.run(document, { resultTypes: ['violations'] })");
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${page.url()}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/** Asserts the planted markup ran nowhere on the page: no handler fired and no such image exists. */
export async function assertInert(page: Page, where: string): Promise<void> {
  // Expressions as strings: the tests' typecheck has no DOM library.
  const found = await page.evaluate<{ fired: unknown; images: number }>(`({ fired: window.__xss, images: document.querySelectorAll('img[src="x"]').length })`);
  assert.deepEqual(found, { fired: undefined, images: 0 }, `${where}: planted markup became HTML`);
}

/** Asserts `secret` is in no URL the tab opened or requested and in no cookie a script can read. */
export async function assertKeyHidden(tab: ConsoleTab, secret: string): Promise<void> {
  assert.equal(tab.page.url().includes(secret), false, `the key is in the page's URL ${tab.page.url()}`);
  const leaked = tab.requestedUrls.filter((url) => url.includes(secret));
  assert.deepEqual(leaked, [], "the key is in a requested URL");
  assert.equal((await tab.page.evaluate<string>("document.cookie")).includes(secret), false, "a script can read the key from document.cookie");
}

/** Writes the page as it looks now to docs/images/<name>.png, for the README. */
export async function screenshotForDocs(page: Page, name: string): Promise<void> {
  const path = join(REPO_ROOT, "docs/images", `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, animations: "disabled", caret: "hide" });
}

/** A temporary description file and calls journal for the hostile MCP test server. */
export function hostileServerFiles(description: string) {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-console-"));
  const files = { dir, description: join(dir, "description.txt"), calls: join(dir, "calls.log") };
  writeFileSync(files.description, description);
  writeFileSync(files.calls, "");
  return { ...files, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
