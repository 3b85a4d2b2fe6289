import { it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const GEN = "packages/packet/src/gen";

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(relative(dir, full), readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  return out;
}

it("packet - committed generated code matches proto/ (run `pnpm gen` after editing a .proto)", () => {
  const out = mkdtempSync(join(tmpdir(), "switchyard-gen-"));
  try {
    // buf finds protoc-gen-es on PATH, as it does under `pnpm gen`.
    const env = { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` };
    execFileSync("buf", ["generate", "-o", out], { cwd: ROOT, env, stdio: "pipe" });
    execFileSync(process.execPath, [join(ROOT, "scripts/banner.mjs"), out]);
    const fresh = files(join(out, GEN));
    const committed = files(join(ROOT, GEN));
    assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort());
    for (const [name, text] of fresh) assert.equal(committed.get(name), text, `${GEN}/${name} is stale`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

it("retrieval - committed WebAssembly bytes match their .wat (run `pnpm gen` after editing one)", () => {
  const out = mkdtempSync(join(tmpdir(), "switchyard-gen-wasm-"));
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts/gen-wasm.mjs"), out], { stdio: "pipe" });
    const generated = files(out);
    assert.ok(generated.size > 0, "gen-wasm wrote no module");
    for (const [name, text] of generated) assert.equal(readFileSync(join(ROOT, name), "utf8"), text, `${name} is stale`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
