// `pnpm reset`: empties the data folder of `pnpm start`, so that the next start
// is a fresh one: no packets, no learned examples, no catalog or tool pins, an
// empty memory server, and the router's vectors computed again.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runningNatsPid } from "@switchyard/local-nats";
import { localDataDir } from "./data-dir.mjs";

const dataDir = localDataDir();
if (!existsSync(dataDir)) {
  console.log(`nothing to reset: ${dataDir} does not exist`);
  process.exit(0);
}
const running = runningNatsPid(join(dataDir, "nats"));
if (running !== undefined) {
  console.error(`Switchyard is running on ${dataDir} (nats-server pid ${running}): stop it (Ctrl-C) before resetting.`);
  process.exit(1);
}
rmSync(dataDir, { recursive: true, force: true });
console.log(`removed ${dataDir}: the next \`pnpm start\` begins with no packets, learned examples, tool pins or memories`);
