import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import type { Tracer } from "@opentelemetry/api";
import { fastify } from "fastify";
import type { FastifyInstance } from "fastify";
import {
  addMicroService,
  ATTEMPTS_BUCKET,
  ATTEMPTS_TTL_MS,
  CATALOG_BUCKET,
  ensureDeadLetters,
  ensurePacketStream,
  ensureStageConsumer,
  heartbeatIntervalMs,
  mirrorCatalog,
  openBucket,
  PACKETS_BUCKET,
  startDeadLetterWorker,
  startStageWorker,
} from "@switchyard/bus";
import type { Endpoint, Service, TopologyOptions } from "@switchyard/bus";
import { parseList, readConfig } from "@switchyard/config";
import { referenceCandidates, resolveCandidates } from "@switchyard/packet";
import type { Packet, Stage, StageOutcome } from "@switchyard/packet";
import type { Static, TObject } from "typebox";
import { createLogger, DependencyHealth, INSTANCE, initTracing, processMetrics, SWITCHYARD_VERSION } from "@switchyard/telemetry";
import type { Logger, Tracing, TracingOptions } from "@switchyard/telemetry";
import { downMetadata, readiness } from "./readiness.js";
import { exitOnSettingsError, listenOrExit } from "./listen.js";
import { runtimeConfigSchema } from "./runtime-config.js";
import type { RuntimeConfig } from "./runtime-config.js";
import { finishedPacket, measuredHandler, watchStageConsumer } from "./stage-metrics.js";

export interface ServiceOptions {
  /** The service's name, on its logs, hops, NATS connection and NATS micro service. */
  name: string;
  /** What the service does, one line, as `$SRV.INFO` (`nats micro info`) shows it. */
  description: string;
  env: Record<string, string | undefined>;
  /** Port of /healthz, /readyz and /metrics when HEALTH_PORT is unset; unset means no health server (the gateway serves its own). */
  defaultHealthPort?: number;
  /** OpenTelemetry instrumentations of libraries the service uses (the gateway's fastify and gRPC servers). */
  instrumentations?: TracingOptions["instrumentations"];
}

export interface ServiceContext {
  name: string;
  config: RuntimeConfig;
  nc: NatsConnection;
  packets: KV;
  logger: Logger;
  tracer: Tracer;
  topology: TopologyOptions;
  /**
   * The dependencies the service is configured with (its model, the embeddings endpoint) and
   * which are down: `/readyz` answers 200 `{"status":"degraded","down":[…]}` while any is, and
   * the process's NATS micro service says so in its metadata (`down`), where the gateway reads
   * the whole fleet's (`$SRV.INFO`).
   */
  dependencies: DependencyHealth;
  /**
   * Serves exactly these request/reply endpoints as this process's NATS micro service
   * (`$SRV.INFO` lists them). The service is added anew with them and only then the
   * one before stopped, so a request finds an answer throughout.
   */
  serveEndpoints(endpoints: readonly Endpoint[]): Promise<void>;
  /** Marks the service ready (or not) for /readyz; the "ready" log line carries `details` (ports, counts) and the dependencies that are down. */
  setReady(ready: boolean, details?: Record<string, unknown>): void;
  /** Registers work to undo at shutdown, run in reverse order before the NATS connection drains. */
  onStop(stop: () => Promise<void> | void): void;
  /** Drains everything and resolves; what SIGTERM triggers. */
  shutdown(): Promise<void>;
}

/**
 * Starts a service process's common parts: logger, tracing, the NATS
 * connection, the packet stream and bucket (created if missing), and the
 * health server.
 */
export async function startService(options: ServiceOptions): Promise<ServiceContext> {
  const config = readConfig(runtimeConfigSchema, options.env);
  const logger = createLogger(options.name, config.LOG_LEVEL);
  processMetrics().setService(options.name);
  const tracing: Tracing = initTracing(options.name, { instrumentations: options.instrumentations ?? [], env: options.env });
  const nc = await connect({
    servers: config.NATS_URL.split(","),
    name: `${options.name}@${INSTANCE}`,
    // A service outlives NATS restarts: it keeps trying until NATS is back.
    maxReconnectAttempts: -1,
    // Every request (each JetStream publish and KV write is one) would otherwise build two
    // errors with stack traces in case it fails: 4-6 % of each service's CPU in the packet
    // bench's profile (docs/performance.md). A failure still says what failed.
    noAsyncTraces: true,
  });
  const topology: TopologyOptions = {
    replicas: config.JETSTREAM_REPLICAS,
    ackWaitMs: config.STAGE_ACK_WAIT_MS,
    maxDeliver: config.STAGE_MAX_DELIVER,
    backoffMs: parseList(config.STAGE_BACKOFF_MS).map(Number),
  };
  await ensurePacketStream(nc, topology);
  const packets = await openBucket(nc, PACKETS_BUCKET, topology, config.PACKET_RETENTION_HOURS * 3_600_000);

  // Every process is a micro service, endpoints or not: `$SRV.PING` and `nats micro ls` see the whole fleet.
  const dependencies = new DependencyHealth(logger);
  const identity = () => ({
    name: options.name,
    version: SWITCHYARD_VERSION,
    description: options.description,
    metadata: { instance: INSTANCE, ...downMetadata(dependencies.down()) },
  });
  let served: readonly Endpoint[] = [];
  let micro: Service = await addMicroService(nc, identity(), served, logger);
  let endpointsChanged = Promise.resolve();
  /** The micro service added anew (the last call's endpoints, the current metadata), and only then the one before stopped. */
  const readdMicro = () => {
    // One change at a time, so the last call's endpoints are the ones served.
    endpointsChanged = endpointsChanged.then(async () => {
      const before = micro;
      micro = await addMicroService(nc, identity(), served, logger);
      await before.stop();
    });
    return endpointsChanged;
  };
  // A dependency's metadata is fixed when its micro service is added: a change of health adds it anew.
  dependencies.onChange(() => void readdMicro().catch((error: unknown) => logger.error({ err: error }, "micro service not updated")));

  let ready = false;
  const stops: (() => Promise<void> | void)[] = [];
  const healthPort = config.HEALTH_PORT ?? options.defaultHealthPort;
  let health: FastifyInstance | undefined;
  if (healthPort !== undefined) {
    health = fastify();
    health.get("/healthz", async () => ({ status: "ok" }));
    health.get("/readyz", async (_request, reply) =>
      ready && !nc.isClosed() ? readiness(dependencies.down()) : reply.code(503).send({ status: "not ready" }),
    );
    health.get("/metrics", async (_request, reply) => {
      const { contentType, body } = await processMetrics().exposition();
      return reply.type(contentType).send(body);
    });
    await listenOrExit(() => health!.listen({ port: healthPort, host: config.HEALTH_HOST }), { host: config.HEALTH_HOST, port: healthPort, setting: "HEALTH_PORT" }, logger);
  }

  let shuttingDown: Promise<void> | undefined;
  const context: ServiceContext = {
    name: options.name,
    config,
    nc,
    packets,
    logger,
    tracer: tracing.tracer,
    topology,
    dependencies,
    serveEndpoints(endpoints) {
      served = endpoints;
      return readdMicro();
    },
    setReady(value, details = {}) {
      ready = value;
      const address = health?.server.address();
      const healthPort = typeof address === "object" && address ? address.port : undefined;
      const down = dependencies.down();
      if (value) logger.info({ healthPort, ...details, ...(down.length > 0 ? { down } : {}) }, "ready");
    },
    onStop(stop) {
      stops.push(stop);
    },
    shutdown() {
      shuttingDown ??= (async () => {
        ready = false;
        await health?.close();
        await micro.stop();
        for (const stop of stops.reverse()) await stop();
        await nc.drain();
        await tracing.shutdown();
        logger.info("stopped");
      })();
      return shuttingDown;
    },
  };
  return context;
}

/** Creates the stage's durable consumer and works on its packets until shutdown, measured on /metrics. */
export async function runStage(
  context: ServiceContext,
  stage: Stage,
  handle: (packet: Packet) => StageOutcome | Promise<StageOutcome>,
): Promise<void> {
  await ensureStageConsumer(context.nc, stage, context.topology);
  const attempts = await openBucket(context.nc, ATTEMPTS_BUCKET, context.topology, ATTEMPTS_TTL_MS);
  const worker = await startStageWorker({
    nc: context.nc,
    stage,
    service: context.name,
    handle: measuredHandler(processMetrics(), stage, handle),
    packets: context.packets,
    tracer: context.tracer,
    logger: context.logger,
    concurrency: context.config.STAGE_CONCURRENCY,
    heartbeatMs: heartbeatIntervalMs(context.topology),
    retryDelayMs: context.config.STAGE_RETRY_DELAY_MS,
    attempts,
    onEnded: countFinished,
    ...(context.config.TRACE_CONTENT ? { content: { maxChars: context.config.TRACE_CONTENT_MAX_CHARS } } : {}),
  });
  context.onStop(() => worker.stop());
  // Every stage service shares the one dead-letter consumer, so each record is handled once.
  await ensureDeadLetters(context.nc, context.topology);
  const deadLetters = await startDeadLetterWorker({ nc: context.nc, packets: context.packets, attempts, logger: context.logger, onEnded: countFinished });
  context.onStop(() => deadLetters.stop());
  context.onStop(await watchStageConsumer(processMetrics(), context.nc, stage));
}

function countFinished(packet: Packet): void {
  processMetrics().packetFinished(finishedPacket(packet));
}

/** SIGTERM and SIGINT drain the service, then the process exits. */
export function drainOnSignals(context: ServiceContext): void {
  const onSignal = (signal: NodeJS.Signals) => {
    context.logger.info({ signal }, "draining");
    context.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        context.logger.error({ err: error }, "drain failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
}

export interface StageServiceOptions<S extends TObject, D> extends ServiceOptions {
  stage: Stage;
  /** The service's own settings, read from `env` before anything starts. */
  configSchema: S;
  /** The stage's dependencies (its settings, the model or policy it plugs in), made once from the settings; a model registers with `health`. */
  deps: (config: Static<S>, health: DependencyHealth) => D;
  /** The stage itself: one packet and its dependencies. */
  handle: (packet: Packet, deps: D) => StageOutcome | Promise<StageOutcome>;
  /**
   * The stage reads its candidates' descriptions and input schemas: the service keeps a copy
   * of the catalog, and `handle` sees each candidate's whole definition (the packet carries
   * them by reference between stages).
   */
  readsCandidates?: boolean;
}

/** The whole life of a service that is one stage and nothing else: settings, NATS, the stage, drain on signals. */
export async function runStageService<S extends TObject, D>(options: StageServiceOptions<S, D>): Promise<ServiceContext> {
  exitOnSettingsError(options.name);
  const config = readConfig(options.configSchema, options.env);
  const service = await startService(options);
  const deps = options.deps(config, service.dependencies);
  drainOnSignals(service);
  const handle = options.readsCandidates ? await withCandidateDefinitions(service, options.handle) : options.handle;
  await runStage(service, options.stage, (packet) => handle(packet, deps));
  await service.dependencies.checkAll();
  service.setReady(true);
  return service;
}

/** `handle` with the candidates' definitions from the service's copy of the catalog, and back to references when it is done. */
async function withCandidateDefinitions<D>(service: ServiceContext, handle: StageServiceOptions<TObject, D>["handle"]): Promise<StageServiceOptions<TObject, D>["handle"]> {
  const catalog = await mirrorCatalog(await openBucket(service.nc, CATALOG_BUCKET, service.topology));
  service.onStop(() => catalog.stop());
  return async (packet, deps) => {
    resolveCandidates(packet, (name) => catalog.get(name));
    try {
      return await handle(packet, deps);
    } finally {
      referenceCandidates(packet);
    }
  };
}
