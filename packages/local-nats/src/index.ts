export { freePort, natsServerAvailable, natsServerVersion, runningNatsPid, startLocalNats, startLocalNatsCluster } from "./local-nats.js";
export type { ClusterMembership, LocalNats, LocalNatsCluster, LocalNatsOptions } from "./local-nats.js";
