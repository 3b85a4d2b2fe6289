// Marks every generated file as generated, so nobody edits it by hand;
// `pnpm gen` regenerates them and test/generated-code.test.ts fails on drift.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const BANNER = "// DO NOT EDIT. Generated from proto/switchyard/v1 by `pnpm gen`.\n";
const dir = new URL("../packages/packet/src/gen/", import.meta.url).pathname;

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
walk(dir);
