/**
 * packet-e2e's other floor: the MCP call alone, read_text_file on the real filesystem
 * server over stdio, from one client as the executor holds one per server.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loopLoad } from "./load.js";
import type { ClosedLoad, LoadFigures } from "./load.js";

/** The executor's install of the server, the one switchyard.yaml starts. */
const SERVER = fileURLToPath(new URL("../../../services/executor/node_modules/.bin/mcp-server-filesystem", import.meta.url));

export interface McpAlone {
  /** Closed-loop calls, `connections` in flight, for `duration` seconds. */
  run(load: ClosedLoad): Promise<LoadFigures>;
  close(): Promise<void>;
}

/** Starts the server and connects one client, ready to run. */
export async function startMcpAlone(options: { workspace: string; path: string }): Promise<McpAlone> {
  const client = new Client({ name: "switchyard-bench", version: "0.1.0" }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: SERVER, args: [options.workspace], stderr: "ignore" }));
  const call = async () => {
    const result = await client.callTool({ name: "read_text_file", arguments: { path: options.path } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  return { run: (load) => loopLoad(call, load), close: () => client.close() };
}
