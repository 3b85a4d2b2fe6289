/**
 * The floor's responder, in its own process as a router replica is: answers every
 * request on BENCH_SUBJECT with its own payload, in a queue group as the router's
 * endpoint is. Logs "ready" once subscribed.
 */
import { connect } from "@nats-io/transport-node";

const nc = await connect({ servers: process.env["BENCH_NATS_URL"]! });
nc.subscribe(process.env["BENCH_SUBJECT"]!, { queue: "bench", callback: (_error, msg) => void msg.respond(msg.data) });
await nc.flush();
process.stdout.write("ready\n");
process.on("SIGTERM", () => void nc.drain().then(() => process.exit(0)));
