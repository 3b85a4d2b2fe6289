// `pnpm start`: the whole fleet on this machine, one process per service, with
// readable prefixed logs. Uses NATS_URL when set, else starts a private
// nats-server from PATH whose JetStream data (packets, learned examples, the
// catalog) stays in the data folder from one run to the next, like the memory
// server's file and the router's vectors. `pnpm reset` empties the folder.
import { join } from "node:path";
import { natsServerAvailable, startLocalNats } from "@switchyard/local-nats";
import { SERVICES, startFleet } from "@switchyard/fleet";
import { localDataDir } from "./data-dir.mjs";

const COLORS = [36, 32, 33, 35, 34, 31];
const width = Math.max(...SERVICES.map((s) => s.length));
const LEVELS = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const tty = process.stdout.isTTY;

function print(service, record, line) {
  const color = COLORS[SERVICES.indexOf(service) % COLORS.length];
  const prefix = tty ? `\x1b[${color}m${service.padEnd(width)}\x1b[0m |` : `${service.padEnd(width)} |`;
  if (record.level === undefined) return console.log(`${prefix} ${line}`);
  // The prefix already names the service; the rest of pino's base fields are noise here.
  const rest = { ...record };
  for (const key of ["level", "time", "msg", "pid", "hostname", "name", "service", "instance"]) delete rest[key];
  const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
  console.log(`${prefix} ${LEVELS[record.level] ?? record.level} ${record.msg ?? ""}${extra}`);
}

/**
 * Every service listens on its own port: the gateway's HTTP API on HTTP_PORT (8080), each
 * stage's /healthz, /readyz and /metrics on the next ones in the order a packet meets them
 * (intent 8081 … executor 8085). A HEALTH_PORT in the environment would give them all one.
 */
function ports() {
  const base = Number(process.env.HTTP_PORT ?? 8080);
  if (!Number.isInteger(base) || base < 1 || base + SERVICES.length > 65536) {
    console.error(`HTTP_PORT=${process.env.HTTP_PORT} is not a port that leaves room for the ${SERVICES.length - 1} stages after it`);
    process.exit(1);
  }
  if (process.env.HEALTH_PORT) console.log(`HEALTH_PORT=${process.env.HEALTH_PORT} ignored: pnpm start gives each service its own port after HTTP_PORT=${base}`);
  return Object.fromEntries(SERVICES.map((name, offset) => [name, offset === 0 ? { HTTP_PORT: String(base) } : { HEALTH_PORT: String(base + offset) }]));
}

const dataDir = localDataDir();
let nats;
let fleet;
// Ctrl-C stops whatever has started, at any point: the services first (each finishes its
// packets and closes its NATS connection), then NATS. While they start, the start is aborted.
const stopAsked = new AbortController();
async function stop() {
  await fleet?.stop();
  await nats?.stop();
  console.log("Switchyard stopped.");
  process.exit(0);
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (stopAsked.signal.aborted) return;
    stopAsked.abort();
    if (fleet) void stop();
  });
}

let natsUrl = process.env.NATS_URL;
if (!natsUrl) {
  if (!natsServerAvailable()) {
    console.error(
      "Switchyard needs NATS with JetStream. Either set NATS_URL=nats://host:4222, or install nats-server\n" +
        "(Debian/Ubuntu: `sudo apt-get install nats-server`; others: https://docs.nats.io/running-a-nats-service/installation).",
    );
    process.exit(1);
  }
  try {
    // Its own process group, like the services: Ctrl-C stops them first, then NATS.
    nats = await startLocalNats({ dataDir: join(dataDir, "nats"), detached: true });
  } catch (error) {
    console.error(`${error.message}: is Switchyard already running? Stop it, or set SWITCHYARD_DATA_DIR to another folder.`);
    process.exit(1);
  }
  if (stopAsked.signal.aborted) await stop();
  natsUrl = nats.url;
  console.log(`nats-server with JetStream on ${natsUrl}`);
}

/** Port settings a service could not listen on (its fatal log line names the setting). */
const portsTaken = new Set();
try {
  fleet = await startFleet({
    natsUrl,
    onLog: (service, record, line) => {
      if (record.level === 60 && record.setting) portsTaken.add(record.setting);
      print(service, record, line);
    },
    detached: true,
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
      // Local mode has no API keys: nothing listens beyond this machine unless asked to.
      HTTP_HOST: process.env.HTTP_HOST ?? "127.0.0.1",
      HEALTH_HOST: process.env.HEALTH_HOST ?? "127.0.0.1",
      SWITCHYARD_DATA_DIR: dataDir,
      ROUTER_DATA_DIR: join(dataDir, "router"),
    },
    serviceEnv: ports(),
    signal: stopAsked.signal,
  });
} catch (error) {
  if (stopAsked.signal.aborted) await stop();
  console.error(String(error.message ?? error));
  if (portsTaken.has("HEALTH_PORT") || portsTaken.has("HTTP_PORT")) {
    console.error("pnpm start puts the services on HTTP_PORT (default 8080) and the five ports after it: set HTTP_PORT to move them all, e.g. HTTP_PORT=9080.");
  }
  await nats?.stop();
  process.exit(1);
}
if (stopAsked.signal.aborted) await stop();
const ready = Object.fromEntries([...fleet.processes].map(([name, service]) => [name, service.ready]));
const { auth, grpcPort, warning, modelDoors = {} } = ready.gateway;
// startFleet runs local mode (AUTH=none, tenant "local") unless AUTH, API_KEYS or API_KEYS_FILE is set.
const mode = auth === "none" ? "local mode, no API keys (AUTH=none)" : "API keys required (Authorization: Bearer <key>)";
const stagePorts = SERVICES.slice(1).map((name) => `${name} :${ready[name].healthPort}`).join(", ");
// Each service's "ready" line names its configured dependencies that did not answer the check at start.
const down = SERVICES.flatMap((name) => (ready[name].down ?? []).map((dependency) => `${dependency} (${name})`));
console.log(
  [
    "",
    `Switchyard is up, ${mode}:`,
    `  HTTP    ${fleet.gatewayUrl()}   (API docs at /docs, metrics at /metrics)`,
    `  gRPC    127.0.0.1:${grpcPort}`,
    `  stages  /healthz, /readyz, /metrics on ${stagePorts}`,
    // Each model door's upstream, or the setting that gives it one: a door without is a 503, never a default host.
    ...Object.entries(modelDoors).map(([door, upstream]) => `  ${door} → ${upstream}`),
    `  data    ${nats ? dataDir : `${dataDir} (JetStream data on ${natsUrl})`}; \`pnpm reset\` starts clean`,
    ...(warning ? [`  WARNING ${warning}`] : []),
    ...(down.length > 0
      ? [`  WARNING down: ${down.join(", ")}; their stages decide by built-in fallbacks, and say so in each packet's stateReason (check LLM_BASE_URL, EMBEDDINGS_BASE_URL)`]
      : []),
    "Ctrl-C stops it.",
    "",
  ].join("\n"),
);

