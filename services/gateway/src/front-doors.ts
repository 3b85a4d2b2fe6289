// The gateway's HTTP and gRPC front doors on a started service; main.ts imports this
// module only once tracing runs, so that @grpc/grpc-js loads instrumented.
import { ServerCredentials } from "@grpc/grpc-js";
import { CATALOG_BUCKET, EXAMPLES_BUCKET, followStoredPackets, MCP_SESSIONS_BUCKET, MCP_SESSIONS_TTL_MS, openBucket, SERVERS_BUCKET } from "@switchyard/bus";
import type { WaitingPackets } from "@switchyard/bus";
import { listenOrExit } from "@switchyard/runtime";
import type { ServiceContext } from "@switchyard/runtime";
import type { ServerUrlPolicy } from "@switchyard/config";
import { buildApp } from "./app.js";
import { isLoopback } from "./shared/auth.js";
import type { Authenticator } from "./shared/auth.js";
import { tenantLimit } from "./config.js";
import type { Config } from "./config.js";
import { consoleLinks } from "./shared/console-links.js";
import { buildGrpcServer, ROUTER_SERVICE_NAME } from "./doors/grpc/grpc-server.js";
import { parseUserDomains } from "./doors/mcp/mcp-session.js";
import { LivePackets, livePacketsObserver } from "./fleet/live-packets.js";
import { RECENT_PACKETS_PER_TENANT, RecentPackets } from "./fleet/recent-packets.js";
import { watchNatsAvailability } from "./fleet/nats-availability.js";
import { modelDoorUpstreams } from "./shared/model-api/model-upstream.js";
import { createNatsDeps } from "./fleet/nats-deps.js";

export interface FrontDoorOptions {
  /** Who may call, throttled (auth-throttle.ts). */
  auth: Authenticator;
  /** SERVER_URL_ALLOW, parsed. */
  serverUrls: ServerUrlPolicy;
  /** Said in the ready line, when there is one. */
  warning?: string;
  /** The operators' tally of packets waiting for a person (watchFleetBacklog's), fed by the gateway's watch of the bucket. */
  waiting: WaitingPackets;
}

/** Serves HTTP and gRPC until the service stops; marks the service ready with both ports (and the warning, when there is one). */
export async function serveFrontDoors(service: ServiceContext, config: Config, { auth, serverUrls, warning, waiting }: FrontDoorOptions): Promise<void> {
  const availability = watchNatsAvailability(service.nc, config.PUBLISH_TIMEOUT_MS);
  const maxConcurrent = tenantLimit(config, "MAX_CONCURRENT_PACKETS");
  const live = new LivePackets(maxConcurrent);
  const recent = new RecentPackets(service.config.PACKET_RETENTION_HOURS * 3_600_000, RECENT_PACKETS_PER_TENANT, (await service.packets.status()).values === 0);
  // One watch of the bucket feeds the console's index, the operators' waiting tally and, when there is a limit, the concurrency count.
  const observers = [recent.observe, waiting.observe, ...(maxConcurrent > 0 ? [livePacketsObserver(live)] : [])];
  const stopFollowing = await followStoredPackets(service.packets, observers, (err) =>
    service.logger.warn({ err }, "a stored packet could not be read for the console's index, the waiting tally or the concurrency count"),
  );
  service.onStop(stopFollowing);
  const deps = await createNatsDeps({
    nc: service.nc,
    packets: service.packets,
    catalog: await openBucket(service.nc, CATALOG_BUCKET, service.topology),
    examples: await openBucket(service.nc, EXAMPLES_BUCKET, service.topology),
    mcpSessions: await openBucket(service.nc, MCP_SESSIONS_BUCKET, service.topology, MCP_SESSIONS_TTL_MS),
    servers: await openBucket(service.nc, SERVERS_BUCKET, service.topology),
    tracer: service.tracer,
    waitTimeoutMs: config.WAIT_TIMEOUT_MS,
    routeTimeoutMs: config.ROUTE_TIMEOUT_MS,
    maxReinjections: config.MAX_REINJECTIONS,
    publishTimeoutMs: config.PUBLISH_TIMEOUT_MS,
    availability,
    live,
    recent,
    packetDeadlineMs: config.PACKET_DEADLINE_MS,
  });
  // PUBLIC_URL, or this gateway on loopback at the port it listens on (HTTP_PORT may be 0).
  let listening = config.HTTP_PORT;
  const publicUrl = () => config.PUBLIC_URL ?? `http://127.0.0.1:${listening}`;
  const limits = {
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    maxMessageChars: config.MAX_MESSAGE_CHARS,
    maxHistoryTurns: config.MAX_HISTORY_TURNS,
    auth,
  };

  const proxy = {
    baseUrl: config.LLM_BASE_URL,
    apiKey: config.LLM_API_KEY,
    anthropicBaseUrl: config.ANTHROPIC_BASE_URL,
    anthropicApiKey: config.ANTHROPIC_API_KEY,
    topK: config.PROXY_TOP_K,
    timeoutMs: config.PROXY_TIMEOUT_MS,
  };
  const app = buildApp(deps, {
    ...limits,
    rateLimit: { max: tenantLimit(config, "RATE_LIMIT_MAX"), windowMs: config.RATE_LIMIT_WINDOW_MS },
    serverUrls,
    loggerInstance: service.logger,
    loopbackOnly: isLoopback(config.HTTP_HOST),
    mcp: {
      listAllMaxTools: config.MCP_LIST_ALL_MAX_TOOLS,
      searchDefaultK: config.MCP_SEARCH_DEFAULT_K,
      sessionMaxTools: config.MCP_SESSION_MAX_TOOLS,
      userDomains: parseUserDomains(config.MCP_USER_DOMAINS),
    },
    proxy,
    console: { assetsDir: await consoleAssetsDir(), jaegerUiUrl: config.JAEGER_UI_URL },
    publicUrl,
  });
  await listenOrExit(() => app.listen({ port: config.HTTP_PORT, host: config.HTTP_HOST }), { host: config.HTTP_HOST, port: config.HTTP_PORT, setting: "HTTP_PORT" }, service.logger);
  const address = app.server.address();
  if (typeof address === "object" && address) listening = address.port;

  const grpc = buildGrpcServer(deps, { ...limits, links: consoleLinks(publicUrl) });
  const grpcPort = await listenOrExit(
    () =>
      new Promise<number>((resolve, reject) =>
        grpc.server.bindAsync(`${config.HTTP_HOST}:${config.GRPC_PORT}`, ServerCredentials.createInsecure(), (error, port) =>
          error ? reject(error) : resolve(port),
        ),
      ),
    { host: config.HTTP_HOST, port: config.GRPC_PORT, setting: "GRPC_PORT" },
    service.logger,
  );

  // Stop order on SIGTERM: refuse new work first (health NOT_SERVING, HTTP
  // closes once in-flight requests end), then the NATS connection drains.
  service.onStop(() => deps.close());
  service.onStop(() => new Promise<void>((resolve) => grpc.server.tryShutdown(() => resolve())));
  service.onStop(async () => {
    grpc.health.setStatus("", "NOT_SERVING");
    grpc.health.setStatus(ROUTER_SERVICE_NAME, "NOT_SERVING");
    await app.close();
  });

  service.setReady(true, {
    httpPort: listening,
    grpcPort,
    auth: auth.required ? "keys" : "none",
    modelDoors: modelDoorUpstreams(proxy),
    ...(warning ? { warning } : {}),
  });
}

/**
 * The built console's folder, from @switchyard/console's consoleAssetsDir; undefined when the
 * package is not installed beside the gateway (then /console says it is not built).
 */
async function consoleAssetsDir(): Promise<string | undefined> {
  // A specifier in a variable: the package is optional for the typecheck and at run time.
  const name = "@switchyard/console";
  try {
    return ((await import(name)) as { consoleAssetsDir: string }).consoleAssetsDir;
  } catch {
    return undefined;
  }
}
