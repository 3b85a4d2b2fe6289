import { after, before } from "node:test";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";

export interface SuiteNats {
  /** The suite's own nats-server (JetStream on, fresh store). */
  readonly server: LocalNats;
  /** A connection to it. */
  readonly nc: NatsConnection;
}

/**
 * A private nats-server and a connection for the enclosing `describe`: started
 * before its tests, stopped after them. Read `server`/`nc` inside tests, not
 * at definition time.
 */
export function suiteNats(): SuiteNats {
  const state = {} as { server: LocalNats; nc: NatsConnection };
  before(async () => {
    state.server = await startLocalNats();
    state.nc = await connect({ servers: state.server.url });
  });
  after(async () => {
    await state.nc?.close();
    await state.server?.stop();
  });
  return state;
}
