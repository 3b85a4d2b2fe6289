// Marks every generated file as generated, so nobody edits it by hand;
// `pnpm gen` regenerates them and test/generated-code.test.ts fails on drift.
// Usage: node scripts/banner.mjs [output base, default: the repository]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const BANNER = "// DO NOT EDIT. Generated from proto/switchyard/v1 by `pnpm gen`.\n";
const base = resolve(process.argv[2] ?? new URL("..", import.meta.url).pathname);

function walk(path) {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith(".ts")) {
      const text = readFileSync(full, "utf8");
      if (!text.startsWith(BANNER)) writeFileSync(full, BANNER + text);
    }
  }
}
walk(join(base, "packages/packet/src/gen"));
