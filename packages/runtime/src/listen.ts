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
