import { it } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, readConfig } from "@switchyard/config";
import { configSchema } from "../src/config.js";
import { reconcilerSettings } from "../src/fleet/packet-reconciler.js";

it("reconciler settings - on by default, every 15 s, a minute's horizon, 3 resumes", () => {
  assert.deepEqual(reconcilerSettings(readConfig(configSchema, {})), { horizonMs: 60_000, intervalMs: 15_000, maxResumes: 3 });
});

it("reconciler settings - RECONCILE_INTERVAL_MS=0 turns it off", () => {
  assert.equal(reconcilerSettings(readConfig(configSchema, { RECONCILE_INTERVAL_MS: "0" })), undefined);
});

it("reconciler settings - a horizon within WAIT_TIMEOUT_MS is refused, naming RECONCILE_HORIZON_MS", () => {
  assert.throws(
    () => reconcilerSettings(readConfig(configSchema, { RECONCILE_HORIZON_MS: "30000", WAIT_TIMEOUT_MS: "30000" })),
    (error: unknown) => error instanceof ConfigError && error.variable === "RECONCILE_HORIZON_MS" && /more than WAIT_TIMEOUT_MS \(30000\)/.test(error.message),
  );
});
