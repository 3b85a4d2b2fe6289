#!/usr/bin/env node
/**
 * A real MCP server (stdio) whose tools have side effects a test can count:
 * each call appends a line to the file named by SIDE_EFFECT_FILE. The npm
 * reference servers have no append, and reliability tests need one to prove
 * that a packet's side effect happens exactly once.
 *
 * - `append_line` appends `text` after waiting `delay_ms` (a tool slower than the ack wait);
 * - `always_fail` appends an attempt line, then fails: `mode: "error"` answers isError,
 *   `mode: "crash"` kills this server mid-call, as a dying MCP server would.
 */
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const file = process.env.SIDE_EFFECT_FILE;
if (!file) {
  process.stderr.write("SIDE_EFFECT_FILE must name the file the tools append to\n");
  process.exit(2);
}

const TOOLS = [
  {
    name: "append_line",
    description: "Append a line of text to the journal file",
    inputSchema: {
      type: "object",
      properties: {
        text: { type: "string", description: "The line to append" },
        delay_ms: { type: "integer", minimum: 0, description: "Wait this long before appending" },
      },
      required: ["text"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
  {
    name: "always_fail",
    description: "Submit a report to the broken reporting service, which always fails",
    inputSchema: {
      type: "object",
      properties: {
        report: { type: "string", description: "The report to submit" },
        mode: { type: "string", enum: ["error", "crash"], description: "Fail with an error result, or by the server dying" },
      },
      required: ["report"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
];

const server = new Server({ name: "switchyard-side-effect", version: "0.1.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = (request.params.arguments ?? {}) as Record<string, unknown>;
  switch (request.params.name) {
    case "append_line": {
      await sleep(Number(args.delay_ms ?? 0));
      appendFileSync(file, `${String(args.text)}\n`);
      return { content: [{ type: "text", text: `appended ${JSON.stringify(args.text)}` }] };
    }
    case "always_fail": {
      appendFileSync(file, `attempt ${String(args.report)}\n`);
      if (args.mode === "crash") process.exit(1);
      return { isError: true, content: [{ type: "text", text: "the reporting service is down" }] };
    }
    default:
      return { isError: true, content: [{ type: "text", text: `unknown tool ${request.params.name}` }] };
  }
});

await server.connect(new StdioServerTransport());
