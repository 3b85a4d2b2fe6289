#!/usr/bin/env node
/**
 * A real MCP server (Streamable HTTP, stateless) in seed 004's shape: seven pools of
 * nineteen actions each, 133 tools, the pool's tools at `/mcp/<pool>` (so that each pool
 * registers as a server of its own). Every tool only reads and answers
 * `ran <pool>.<tool> <arguments as JSON>`, so a test sees which tool a call reached.
 * PORT names the port (0: any free one); the first line on stdout is the port listened on.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** Each pool and the thing its actions act on. */
const POOLS: Readonly<Record<string, string>> = {
  github: "issue",
  slack: "message",
  jira: "ticket",
  calendar: "event",
  drive: "document",
  crm: "contact",
  billing: "invoice",
};
const ACTIONS = [
  "list", "get", "search", "create", "update", "delete", "archive", "export", "import", "share",
  "comment", "assign", "close", "reopen", "merge", "tag", "watch", "sync", "count",
] as const;

/** The tools of one pool, as it lists them. */
function poolTools(pool: string): { name: string; description: string }[] {
  const thing = POOLS[pool] ?? "item";
  return ACTIONS.map((action) => ({ name: `${action}_${thing}`, description: `${action[0]!.toUpperCase()}${action.slice(1)} a ${pool} ${thing}. Takes an optional id.` }));
}

function serverFor(pool: string): Server {
  const server = new Server({ name: `switchyard-pooled-${pool}`, version: "0.1.0" }, { capabilities: { tools: {} } });
  const tools = poolTools(pool).map((tool) => ({
    ...tool,
    inputSchema: { type: "object" as const, properties: { id: { type: "string", description: `The ${POOLS[pool]}'s id` } } },
    annotations: { readOnlyHint: true },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (!tools.some((tool) => tool.name === request.params.name)) {
      return { isError: true, content: [{ type: "text", text: `unknown tool ${request.params.name}` }] };
    }
    return { content: [{ type: "text", text: `ran ${pool}.${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}` }] };
  });
  return server;
}

const http = createServer((req, res) => {
  const pool = /^\/mcp\/([a-z]+)$/.exec(req.url ?? "")?.[1];
  if (!pool || !(pool in POOLS)) {
    res.writeHead(404).end();
    return;
  }
  // Stateless: a server and a transport per request, as the SDK's stateless example does.
  const server = serverFor(pool);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  server
    .connect(transport)
    .then(() => transport.handleRequest(req, res))
    .catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
});
http.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${(http.address() as AddressInfo).port}\n`);
});
