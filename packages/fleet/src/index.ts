export { localFleetEnv, SERVICE_NODE_OPTIONS, SERVICES, startFleet } from "./fleet.js";
export type { Fleet, FleetOptions, LogRecord, ServiceName, ServiceProcess } from "./fleet.js";
