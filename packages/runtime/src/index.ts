export { exitOnSettingsError, isPortTaken, listenOrExit } from "./listen.js";
export type { ListenAddress } from "./listen.js";
export { runtimeConfigSchema } from "./runtime-config.js";
export type { RuntimeConfig } from "./runtime-config.js";
export { drainOnSignals, runStage, runStageService, startService } from "./service.js";
export type { ServiceContext, ServiceOptions, StageServiceOptions } from "./service.js";
export { finishedPacket, watchFleetBacklog } from "./stage-metrics.js";
export { downInFleet, fleetServices, readiness } from "./readiness.js";
export type { FleetService, Readiness } from "./readiness.js";
