import { hostname } from "node:os";
import { pino } from "pino";
import type { Logger } from "pino";

/** The process's identity on every hop and log line: "<host>:<pid>". */
export const INSTANCE = `${hostname()}:${process.pid}`;

/** JSON logs, one line per event, with the service and instance on every line. */
export function createLogger(service: string, level = "info"): Logger {
  return pino({ name: service, level, base: { service, instance: INSTANCE } });
}

export type { Logger };
