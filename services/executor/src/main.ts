// Wiring only: settings → MCP servers → catalog → the execute stage → drain on SIGTERM.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CATALOG_BUCKET, openBucket } from "@switchyard/bus";
import { readConfig } from "@switchyard/config";
import { drainOnSignals, runStage, startService } from "@switchyard/runtime";
import { syncCatalog } from "./catalog-sync.js";
import { configSchema } from "./config.js";
import type { Config } from "./config.js";
import { executeStage } from "./execute.js";
import { EXECUTIONS_BUCKET, EXECUTIONS_TTL_MS } from "./idempotent-execution.js";
import { McpPool } from "./mcp-pool.js";
import { loadServersConfig } from "./servers-config.js";
import { serveToolApprovals } from "./tool-approval.js";
import { toolGuard } from "./tool-guard.js";

const config = readConfig<Config>(configSchema, process.env);
const dataDir = resolve(config.SWITCHYARD_DATA_DIR ?? join(dirname(resolve(config.SWITCHYARD_CONFIG)), ".switchyard"));
mkdirSync(dataDir, { recursive: true });
const { servers } = await loadServersConfig(config.SWITCHYARD_CONFIG, { ...process.env, SWITCHYARD_DATA_DIR: dataDir });

const service = await startService({ name: "executor", env: process.env, defaultHealthPort: 8085 });
const catalog = await openBucket(service.nc, CATALOG_BUCKET, service.topology);
const serverNames = servers.map((server) => server.name);
const publish = async () => {
  const { quarantined } = await syncCatalog(catalog, serverNames, pool.listTools());
  if (quarantined.length > 0) service.logger.warn({ tools: quarantined }, "tools quarantined until approved (POST /v1/tools/{name}/approve)");
};
const pool: McpPool = await McpPool.connect(servers, {
  logger: service.logger,
  onToolsChanged: (server) => {
    publish().catch((error: unknown) => service.logger.error({ err: error, server }, "catalog update failed"));
  },
});
service.onStop(() => pool.close());
await publish();
const served = () => pool.listTools();
const approvals = serveToolApprovals({ nc: service.nc, logger: service.logger, catalog, served }, serverNames);
service.onStop(async () => void (await Promise.all(approvals.map((subscription) => subscription.drain()))));
drainOnSignals(service);

const ledger = { kv: await openBucket(service.nc, EXECUTIONS_BUCKET, service.topology, EXECUTIONS_TTL_MS), leaseMs: config.EXECUTION_LEASE_MS };
await runStage(service, "execute", (packet) =>
  executeStage(packet, { callTool: pool.callTool.bind(pool), vetCall: toolGuard(catalog, served), ledger }, config),
);
service.setReady(true, { servers: serverNames, tools: pool.listTools().length });
