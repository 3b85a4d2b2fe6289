/**
 * `pnpm bench mcp-doors`: the MCP door's meta-tools beside the HTTP calls they stand for, in
 * the same run on the same fleet (six services, the real filesystem MCP server): `search_tools`
 * over MCP (the official SDK client) beside `POST /v1/route`, and `call_tool` reading a file
 * beside `POST /v1/calls` (the same reviewed call over HTTP) and `POST /v1/packets` (the whole
 * pipeline choosing it). Each at one connection (service time) and at `connections` (load);
 * every caller is a closed loop with one request in flight. The MCP callers share one SDK
 * client: a stateless server's calls are independent POSTs, sent in parallel.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BenchResult, BenchRun } from "./bench-result.js";
import { rate } from "./bench-result.js";
import { connectionLevels, loopLoad } from "./load.js";
import type { LoadFigures } from "./load.js";
import { PACKET_MESSAGE, READ_PATH, startPacketFleet } from "./packet-load.js";

export interface McpDoorsOptions {
  duration: number;
  connections: number;
  log: (line: string) => void;
}

const WARMUP_SECONDS = 2;
const QUERY = "what's in my to-do note";
const READ_TOOL = "filesystem_read_text_file";

export async function benchMcpDoors(options: McpDoorsOptions): Promise<BenchRun> {
  options.log("mcp-doors: starting nats-server and the six services (search_tools needs the meta-tools: MCP_LIST_ALL_MAX_TOOLS=0)");
  const bench = await startPacketFleet({ MCP_LIST_ALL_MAX_TOOLS: "0" });
  const client = new Client({ name: "switchyard-bench", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${bench.url}/mcp`)));
    const post = (path: string, body: object) => async () => {
      const response = await fetch(`${bench.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
      return text;
    };
    const ok = (result: unknown) => {
      if ((result as { isError?: unknown }).isError) throw new Error(`the call failed: ${JSON.stringify(result).slice(0, 200)}`);
      return result;
    };
    const paths: { path: string; operation: () => Promise<unknown> }[] = [
      { path: "MCP search_tools", operation: () => client.callTool({ name: "search_tools", arguments: { query: QUERY, k: 5 } }) },
      { path: "HTTP POST /v1/route", operation: post("/v1/route", { message: QUERY, topK: 5 }) },
      { path: "MCP call_tool (read a file)", operation: async () => ok(await client.callTool({ name: "call_tool", arguments: { name: READ_TOOL, arguments: { path: READ_PATH } } })) },
      { path: "HTTP POST /v1/calls (read a file)", operation: post("/v1/calls", { tool: "filesystem.read_text_file", arguments: { path: READ_PATH } }) },
      { path: "HTTP POST /v1/packets (read a file)", operation: post("/v1/packets", { message: PACKET_MESSAGE }) },
    ];
    const results: BenchResult[] = [];
    for (const connections of connectionLevels(options.connections)) {
      const figures = new Map<string, LoadFigures>();
      for (const { path, operation } of paths) {
        await loopLoad(operation, { connections, duration: WARMUP_SECONDS });
        options.log(`mcp-doors: ${path}, ${connections} connection(s), ${options.duration} s`);
        figures.set(path, await loopLoad(operation, { connections, duration: options.duration }));
      }
      const over = (path: string, floor: string) => ({ ratio: rate(figures.get(path)!.p50Ms / figures.get(floor)!.p50Ms), ratioOf: `p50 / ${floor} p50` });
      for (const { path } of paths) {
        const compared = path.startsWith("MCP search") ? over(path, "HTTP POST /v1/route") : path.startsWith("MCP call") ? over(path, "HTTP POST /v1/calls (read a file)") : {};
        const f = figures.get(path)!;
        results.push({
          bench: "mcp-doors",
          config: { path, connections, seconds: options.duration, failed: f.failed },
          p50Ms: f.p50Ms,
          p99Ms: f.p99Ms,
          throughput: f.throughput,
          ...compared,
        });
      }
    }
    return { results, notes: ["each MCP row's ratio is over the HTTP call it stands for, measured in the same run"] };
  } finally {
    await client.close().catch(() => undefined);
    await bench.close();
  }
}
