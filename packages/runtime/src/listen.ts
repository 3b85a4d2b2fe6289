import type { Logger } from "@switchyard/telemetry";

/** Where a server listens, and the setting that chose the port. */
export interface ListenAddress {
  host: string;
  port: number;
  setting: string;
}

/** True when `error` says the port is taken: Node's EADDRINUSE, or grpc-js's bind failure that quotes it. */
export function isPortTaken(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE" || /EADDRINUSE/.test(String(error));
}

/**
 * Runs `listen`. A port that is taken ends the process with one line that says which
 * port and which setting to change, instead of a stack trace; other errors are thrown.
 */
export async function listenOrExit<T>(listen: () => Promise<T>, address: ListenAddress, logger: Logger): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if (!isPortTaken(error)) throw error;
    logger.fatal(
      { port: address.port, setting: address.setting },
      `port ${address.port} on ${address.host} is taken by another process: set ${address.setting} to a free port (0 picks one)`,
    );
    process.exit(1);
  }
}

/** Errors that say what is wrong with a setting or a settings file, in their message alone. */
const SETTINGS_ERRORS = new Set(["ConfigError", "ServersConfigError"]);

/**
 * A process whose settings are wrong stops with their message (it names the variable or
 * file and what to do) instead of a stack trace; any other uncaught error keeps its trace.
 * Called first in a service's main.
 */
export function exitOnSettingsError(service: string): void {
  process.on("uncaughtException", (error) => {
    const settings = error instanceof Error && SETTINGS_ERRORS.has(error.name);
    process.stderr.write(settings ? `${service}: ${error.message}\n` : `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
