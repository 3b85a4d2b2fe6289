import { it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

it("docs - docs/configuration.md is the reference the services' config schemas write (run `pnpm run docs` after changing a setting)", () => {
  const out = mkdtempSync(join(tmpdir(), "switchyard-docs-"));
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts/docs.mjs"), out], { stdio: "pipe" });
    const fresh = readFileSync(join(out, "configuration.md"), "utf8");
    assert.equal(readFileSync(join(ROOT, "docs/configuration.md"), "utf8"), fresh, "docs/configuration.md is stale");
    // Every setting says what it is for: its schema's description.
    const undescribed = fresh.split("\n").filter((line) => line.startsWith("| `") && line.endsWith("|  |"));
    assert.deepEqual(undescribed, [], "settings without a description in their schema");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
