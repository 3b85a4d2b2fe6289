import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { consoleAssetsDir } from "@switchyard/console";

/** The console's JavaScript budget, gzipped, all chunks together (issue 39). */
const BUDGET_BYTES = 150 * 1024;

describe("console budget - the built console stays small and self-contained", () => {
  const assets = join(consoleAssetsDir, "assets");
  const built = existsSync(join(consoleAssetsDir, "index.html"));

  it("console budget - every JS file gzipped is 150 KB or less in total", { skip: built ? undefined : "the console is not built: run pnpm build first" }, () => {
    const scripts = readdirSync(assets).filter((name) => name.endsWith(".js"));
    assert.ok(scripts.length > 0, `no JavaScript in ${assets}`);
    const sizes = scripts.map((name) => ({ name, gzipped: gzipSync(readFileSync(join(assets, name)), { level: 9 }).length }));
    const total = sizes.reduce((sum, file) => sum + file.gzipped, 0);
    const listing = sizes.map((file) => `${file.name} ${(file.gzipped / 1024).toFixed(1)} KB`).join(", ");
    assert.ok(total <= BUDGET_BYTES, `${(total / 1024).toFixed(1)} KB gzipped > 150 KB: ${listing}`);
  });

  it("console budget - index.html has no inline script or style and nothing loads from another origin", { skip: built ? undefined : "the console is not built: run pnpm build first" }, () => {
    const html = readFileSync(join(consoleAssetsDir, "index.html"), "utf8");
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? []) {
      assert.match(tag, /^<script\b[^>]*\bsrc="\/console\/assets\/[^"]+\.js"[^>]*><\/script>$/, `an inline script: ${tag}`);
    }
    assert.doesNotMatch(html, /<style\b|\sstyle=/, "inline style (CSP style-src 'self')");
    // Any absolute URL in the page or its assets would be a CDN, a font service or a tracker.
    for (const name of ["index.html", ...readdirSync(assets).filter((file) => file.endsWith(".css"))]) {
      const text = readFileSync(name === "index.html" ? join(consoleAssetsDir, name) : join(assets, name), "utf8");
      assert.doesNotMatch(text, /(?:src|href)="https?:|url\(\s*["']?https?:|@import/, `${name} loads from elsewhere`);
    }
  });
});
