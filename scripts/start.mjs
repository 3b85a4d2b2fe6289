// `pnpm start`: the whole fleet on this machine, one process per service, with
// readable prefixed logs. Uses NATS_URL when set, else starts a private
// nats-server from PATH with JetStream in a temp dir.
import { natsServerAvailable, startLocalNats } from "@switchyard/local-nats";
import { SERVICES, startFleet } from "@switchyard/fleet";

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

let nats;
let natsUrl = process.env.NATS_URL;
if (!natsUrl) {
  if (!natsServerAvailable()) {
    console.error(
      "Switchyard needs NATS with JetStream. Either set NATS_URL=nats://host:4222, or install nats-server\n" +
        "(Debian/Ubuntu: `sudo apt-get install nats-server`; others: https://docs.nats.io/running-a-nats-service/installation).",
    );
    process.exit(1);
  }
  nats = await startLocalNats();
  natsUrl = nats.url;
  console.log(`nats-server with JetStream on ${natsUrl} (data in ${nats.dir})`);
}

let fleet;
try {
  fleet = await startFleet({ natsUrl, onLog: print, env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "info" } });
} catch (error) {
  console.error(String(error));
  await nats?.stop();
  process.exit(1);
}
const gateway = fleet.processes.get("gateway").ready;
// startFleet runs local mode (AUTH=none, tenant "local") unless AUTH, API_KEYS or API_KEYS_FILE is set.
const auth = gateway.auth === "none" ? "local mode, no API keys (AUTH=none)" : "API keys required (Authorization: Bearer <key>)";
console.log(`\nSwitchyard is up: HTTP ${fleet.gatewayUrl()} (docs at /docs), gRPC 127.0.0.1:${gateway.grpcPort}; ${auth}. Ctrl-C stops it.\n`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await fleet.stop();
    await nats?.stop();
    process.exit(0);
  });
}
