// The folder where `pnpm start` keeps what the fleet learns and stores between runs.
import { resolve } from "node:path";

/** $SWITCHYARD_DATA_DIR, else .switchyard in the working directory (git-ignored). */
export function localDataDir() {
  return resolve(process.env.SWITCHYARD_DATA_DIR || ".switchyard");
}
