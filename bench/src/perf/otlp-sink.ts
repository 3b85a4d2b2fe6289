import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A local OTLP/HTTP receiver that accepts and drops every batch: the cost of exporting, not of a backend. */
export async function startOtlpSink(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sink = createServer((req, res) => req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}")));
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => sink.close(() => resolve())),
  };
}
