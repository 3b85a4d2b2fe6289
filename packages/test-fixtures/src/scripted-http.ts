// The HTTP parts the scripted doubles of remote model APIs share: a server on a free loopback
// port whose POST routes get the parsed JSON body, and answers written as JSON or as
// server-sent events, each returned as the exact text sent (for byte-for-byte checks).
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Answers one POST with its parsed JSON body. */
export type ScriptedRoute = (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Serves `routes` (by exact path) on a free port of 127.0.0.1; anything else is a 404 with `error`'s body. */
export async function startScriptedHttp(routes: Record<string, ScriptedRoute>, error: (message: string) => unknown): Promise<{ port: number; close(): Promise<void> }> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const route = req.method === "POST" ? routes[req.url ?? ""] : undefined;
    if (!route) return void replyJson(res, 404, error(`no route ${req.method} ${req.url}`));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await route(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>, req, res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((failure: unknown) => replyJson(res, 500, error(String(failure))));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        // stalled requests would keep close() waiting
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `body` as JSON with `status`; answers the text written ("" when the response was already gone). */
export function replyJson(res: ServerResponse, status: number, body: unknown): string {
  if (res.headersSent || res.destroyed) return "";
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json" }).end(text);
  return text;
}

/** Writes each event as a server-sent event (`event: <type>` first when it has one) and ends; answers the text written. */
export function replyEvents(res: ServerResponse, events: readonly { type?: string }[]): string {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let text = "";
  for (const event of events) {
    const chunk = `${event.type ? `event: ${event.type}\n` : ""}data: ${JSON.stringify(event)}\n\n`;
    res.write(chunk);
    text += chunk;
  }
  res.end();
  return text;
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
