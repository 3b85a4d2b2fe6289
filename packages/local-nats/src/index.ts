export { freePort, natsServerAvailable, runningNatsPid, startLocalNats, startLocalNatsCluster } from "./local-nats.js";
export type { ClusterMembership, LocalNats, LocalNatsCluster, LocalNatsOptions } from "./local-nats.js";
