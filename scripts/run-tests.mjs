// Runs every test file of the workspace with node's test runner (through tsx,
// so tests are TypeScript). Node 20's --test takes no globs, hence this list.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const roots = ["packages", "services"].flatMap((dir) => readdirSync(dir).map((name) => join(dir, name, "test")));
roots.push("test", join("bench", "test"));
const files = roots
  .filter((dir) => existsSync(dir))
  .flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith(".test.ts")).map((f) => join(dir, f)))
  .filter((file) => process.argv.length <= 2 || process.argv.slice(2).some((arg) => file.includes(arg)));

// A file that hangs fails by name after ten minutes (the longest file takes about one)
// instead of holding the whole run until CI's own limit.
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-timeout=600000", ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
