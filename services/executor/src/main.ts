// Wiring only: settings → MCP servers → catalog → the execute stage → follow the servers file and the
// registered servers → drain on SIGTERM.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CATALOG_BUCKET, mirrorCatalog, openBucket, SERVERS_BUCKET } from "@switchyard/bus";
import { readConfig, serverUrlPolicy } from "@switchyard/config";
import { drainOnSignals, exitOnSettingsError, runStage, startService } from "@switchyard/runtime";
import { catalogPublisher } from "./catalog-sync.js";
import { watchConfigFile } from "./config-watch.js";
import { configSchema } from "./config.js";
import { executeStage } from "./execute.js";
import { EXECUTIONS_BUCKET, EXECUTIONS_TTL_MS } from "./idempotent-execution.js";
import { McpPool } from "./mcp-pool.js";
import { followRegisteredServers } from "./registered-servers.js";
import { rootsByServer } from "./relative-paths.js";
import { loadServersConfig } from "./servers-config.js";
import { reloadServers } from "./servers-reload.js";
import { toolApprovalEndpoints } from "./tool-approval.js";
import { toolGuard } from "./tool-guard.js";

exitOnSettingsError("executor");
const config = readConfig(configSchema, process.env);
const serverUrls = serverUrlPolicy(config.SERVER_URL_ALLOW);
const dataDir = resolve(config.SWITCHYARD_DATA_DIR ?? join(dirname(resolve(config.SWITCHYARD_CONFIG)), ".switchyard"));
mkdirSync(dataDir, { recursive: true });
const env = { ...process.env, SWITCHYARD_DATA_DIR: dataDir };
const { file, servers } = await loadServersConfig(config.SWITCHYARD_CONFIG, env);

const service = await startService({ name: "executor", description: "calls the chosen tool over MCP (stage execute) and approves MCP tools of its servers", env: process.env, defaultHealthPort: 8085 });
const catalog = await openBucket(service.nc, CATALOG_BUCKET, service.topology);
const serverNames = () => pool.servers().map((server) => server.name);
const served = () => pool.listTools();
const reviewed = () => new Set(pool.servers().filter((server) => server.trust === "review").map((server) => server.name));
const publish = catalogPublisher(catalog, () => ({ servers: serverNames(), tools: served(), reviewed: reviewed() }), service.logger);
const pool: McpPool = await McpPool.connect(servers, {
  logger: service.logger,
  serverUrls,
  onToolsChanged: (server) => {
    publish().catch((error: unknown) => service.logger.error({ err: error, server }, "catalog update failed"));
  },
});
service.onStop(() => pool.close());
await publish();
const serveApprovals = (names: string[]) => service.serveEndpoints(toolApprovalEndpoints({ logger: service.logger, catalog, served }, names));
await serveApprovals(serverNames());
// Reloads run one at a time, whether the file or a registration changed.
let reloading = Promise.resolve();
const reload = () => (reloading = reloading.then(() => reloadServers({ file, env, registered: () => registered.servers(), pool, serveApprovals, publish, logger: service.logger })));
const registered = await followRegisteredServers(await openBucket(service.nc, SERVERS_BUCKET, service.topology), () => void reload());
service.onStop(() => registered.stop());
// Stopped first (onStop runs in reverse): a reload under way finishes before the pool closes.
const watch = watchConfigFile(file, reload);
service.onStop(() => watch.close());
// Changes saved while the servers were starting, before the watch began, and the servers registered so far.
await reload();
drainOnSignals(service);

const ledger = { kv: await openBucket(service.nc, EXECUTIONS_BUCKET, service.topology, EXECUTIONS_TTL_MS), leaseMs: config.EXECUTION_LEASE_MS };
const rootsOf = rootsByServer(() => pool.servers());
const mirror = await mirrorCatalog(catalog);
service.onStop(() => mirror.stop());
const deps = { config, callTool: pool.callTool.bind(pool), vetCall: toolGuard(catalog, served, mirror), ledger, rootsOf };
await runStage(service, "execute", (packet) => executeStage(packet, deps));
service.setReady(true, { servers: serverNames(), tools: served().length });
