// The production bundle of one service, exactly what its container image holds:
// the service's dist, its production dependencies only, and the workspace
// packages it uses copied in as built (no links back into the repository).
// deploy/Dockerfile runs this, and test/service-bundles.test.ts runs it
// without Docker to prove the bundles start on their own.
//
//   node scripts/bundle-service.mjs <service> <out-dir>     (after `pnpm build`)
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";

const services = readdirSync(new URL("../services/", import.meta.url));
const [service, out] = process.argv.slice(2);
if (!services.includes(service) || !out) {
  console.error(`usage: node scripts/bundle-service.mjs <${services.join("|")}> <out-dir>`);
  process.exit(2);
}
if (!existsSync(new URL(`../services/${service}/dist/main.js`, import.meta.url))) {
  console.error(`services/${service}/dist/main.js is missing: run \`pnpm build\` first`);
  process.exit(1);
}

// `pnpm deploy` refuses a folder that is not empty.
const target = resolve(out);
rmSync(target, { recursive: true, force: true });
// --legacy: copy workspace packages by their `files` (dist) instead of
// requiring inject-workspace-packages for the whole workspace.
const result = spawnSync("npx", ["--yes", "pnpm@10", "--filter", `@switchyard/${service}`, "deploy", "--prod", "--legacy", target], {
  cwd: new URL("..", import.meta.url),
  stdio: ["ignore", "inherit", "inherit"],
});
process.exit(result.status ?? 1);
