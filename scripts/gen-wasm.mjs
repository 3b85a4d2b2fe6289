// Compiles each WebAssembly text module of the workspace into a TypeScript
// module that holds its bytes, so that the packages load it with no file
// beside their JavaScript and no build step beyond `tsc`; `pnpm gen`
// regenerates them and test/generated-code.test.ts fails on drift.
// Usage: node scripts/gen-wasm.mjs [output base, default: the repository]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { dirname, join, relative, resolve } from "node:path";
import initWabt from "wabt";

/** Each module's text and the TypeScript module its bytes go to, from the repository's root. */
const WASM_MODULES = [{ source: "packages/retrieval/src/scatter.wat", out: "packages/retrieval/src/gen/scatter-wasm.ts", name: "SCATTER_WASM" }];

const root = resolve(new URL("..", import.meta.url).pathname);
const base = resolve(process.argv[2] ?? root);
const wabt = await initWabt();
for (const { source, out, name } of WASM_MODULES) {
  const parsed = wabt.parseWat(source, readFileSync(join(root, source), "utf8"), { threads: true });
  parsed.validate({ threads: true });
  const bytes = Buffer.from(parsed.toBinary({}).buffer).toString("base64");
  parsed.destroy();
  const target = join(base, out);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(
    target,
    `// DO NOT EDIT. Generated from ${source} by \`pnpm gen\`.\n` +
      `/** The WebAssembly module of ${relative(dirname(out), source)}, as bytes. */\n` +
      `export const ${name} = Buffer.from("${bytes}", "base64");\n`,
  );
}
