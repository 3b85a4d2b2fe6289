import type { Logger } from "@switchyard/telemetry";
import type { McpPool } from "./mcp-pool.js";
import { withRegistered } from "./registered-servers.js";
import { loadServersConfig, ServersConfigError } from "./servers-config.js";
import type { ServerConfig } from "./servers-config.js";

export interface ReloadDeps {
  /** The MCP servers file. */
  file: string;
  /** What `${VAR}` references in it are read from. */
  env: Record<string, string | undefined>;
  /** The servers registered at run time (registered-servers.ts), as they are now. */
  registered: () => ServerConfig[];
  pool: McpPool;
  /** Serves the tool approval endpoints of exactly these servers (tool-approval.ts). */
  serveApprovals: (servers: string[]) => Promise<void>;
  /** Brings the catalog in step with the pool, retiring the tools of the `removed` servers. */
  publish: (removed: string[]) => Promise<void>;
  logger: Pick<Logger, "info" | "error">;
}

/**
 * Applies the servers file and the registered servers as they are now to the running
 * executor: the pool starts added and changed servers and takes removed ones out, the approval endpoints and the catalog
 * follow (a removed server's tools are retired, their pins kept). One log line per change.
 * A file that cannot be used is one error line, and the servers keep running as they were;
 * a file with no change does nothing. Never rejects.
 */
export async function reloadServers(deps: ReloadDeps): Promise<void> {
  const { file, pool, logger } = deps;
  let fromFile: ServerConfig[];
  try {
    ({ servers: fromFile } = await loadServersConfig(file, deps.env));
  } catch (error) {
    const problems = error instanceof ServersConfigError ? error.problems : [(error as Error).message];
    // A YAML error's first line says what and where; the code frame under it stays in `problems`.
    const summary = problems.map((problem) => problem.split("\n")[0]).join("; ");
    logger.error({ file, problems }, `cannot apply ${file}: ${summary}; the MCP servers keep running as they were`);
    return;
  }
  const registered = deps.registered();
  const { servers, shadowed } = withRegistered(fromFile, registered);
  for (const name of shadowed) logger.error({ file, server: name }, `registered MCP server ${name} left out: ${file} has a server of that name`);
  const changes = await pool.apply(servers);
  if (Object.values(changes).every((list) => list.length === 0)) return;
  await deps
    .serveApprovals(pool.servers().map((server) => server.name))
    .catch((error: unknown) => logger.error({ err: error }, "cannot update the tool approval endpoints"));
  await deps.publish(changes.removed).catch((error: unknown) => logger.error({ err: error }, "catalog update failed"));
  for (const { name, tools } of changes.added) logger.info({ server: name, tools }, `MCP server added: ${name} (${tools} tools)`);
  for (const { name, tools } of changes.changed) logger.info({ server: name, tools }, `MCP server changed: ${name} (${tools} tools)`);
  for (const name of changes.removed) logger.info({ server: name }, `MCP server removed: ${name}`);
  const isRegistered = new Set(registered.map((server) => server.name));
  for (const { name, change, error } of changes.failed) {
    const outcome = change === "added" ? "not added" : "not changed, it keeps running with its old settings";
    const retry = isRegistered.has(name) ? "register it again to retry" : `save ${file} again to retry`;
    logger.error({ file, server: name }, `MCP server ${name} ${outcome}: ${error} (${retry})`);
  }
}
