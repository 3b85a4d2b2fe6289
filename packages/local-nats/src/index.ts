export { natsServerAvailable, runningNatsPid, startLocalNats } from "./local-nats.js";
export type { LocalNats, LocalNatsOptions } from "./local-nats.js";
