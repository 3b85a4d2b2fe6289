export { localFleetEnv, SERVICES, startFleet } from "./fleet.js";
export type { Fleet, FleetOptions, LogRecord, ServiceName, ServiceProcess } from "./fleet.js";
