import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { context, trace, TraceFlags } from "@opentelemetry/api";
import { createLogger, withPacketId } from "../src/logger.js";
import { initTracing } from "../src/tracing.js";

// The SDK, started as the services start it when tracing is on (here with no span processor), provides the context manager.
const tracing = initTracing("logger-test", { env: {}, spanProcessors: [] });

const LOG_LINES = fileURLToPath(new URL("fixtures/log-lines.ts", import.meta.url));

/** The fixture child, logging to a piped stdout: "linger" runs on after its line, "exit" exits at once. */
function loggingChild(mode: "linger" | "exit") {
  return spawn(process.execPath, ["--import", "tsx", LOG_LINES, mode], { stdio: ["ignore", "pipe", "inherit"] });
}

/** A logger whose JSON lines are kept, and the lines it has written so far. */
function capturing(level = "info"): { logger: ReturnType<typeof createLogger>; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const logger = createLogger("test", level, { write: (chunk: string) => void chunks.push(chunk) });
  return { logger, lines: () => chunks.join("").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("logger", () => {
  after(() => tracing.shutdown());

  it("logger - every line inside a packet's span carries trace id, span id and packet id", () => {
    const { logger, lines } = capturing();
    const spanContext = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED };
    const ctx = withPacketId(trace.setSpanContext(context.active(), spanContext), "packet-1");
    context.with(ctx, () => logger.info("handed on"));
    const [line] = lines();
    assert.equal(line!["trace_id"], spanContext.traceId);
    assert.equal(line!["span_id"], spanContext.spanId);
    assert.equal(line!["packet_id"], "packet-1");
    assert.equal(line!["service"], "test");
  });

  it("logger - outside a trace, no ids are made up", () => {
    const { logger, lines } = capturing();
    logger.info("starting");
    const [line] = lines();
    assert.equal("trace_id" in line!, false);
    assert.equal("packet_id" in line!, false);
  });

  it("logger - secrets are masked in the message and in the object", () => {
    const { logger, lines } = capturing();
    logger.warn({ header: "Bearer abcdefghijkl", nested: { key: "sk-abcdefghijklmnop1234" } }, "called with api_key=abcdefgh");
    const [line] = lines();
    assert.equal(line!["msg"], "called with api_key=ab****");
    assert.equal(line!["header"], "Bear****");
    assert.deepEqual(line!["nested"], { key: "sk-a****" });
  });

  it("logger - secrets are masked in arrays, deep objects and errors with their stacks", () => {
    const { logger, lines } = capturing();
    logger.error({ list: ["sk-abcdefghijklmnop1234"], deep: { a: { b: { c: { d: "password=hunter22" } } } }, err: new Error("bad key sk-abcdefghijklmnop1234") }, "failed");
    const [line] = lines();
    assert.deepEqual(line!["list"], ["sk-a****"]);
    assert.deepEqual(line!["deep"], { a: { b: { c: { d: "password=hu****" } } } });
    const err = line!["err"] as { message: string; stack: string };
    assert.equal(err.message, "bad key sk-a****");
    assert.ok(err.stack.startsWith("Error: bad key sk-a****\n"), err.stack);
    assert.ok(!JSON.stringify(line).includes("hunter22") && !JSON.stringify(line).includes("ijklmnop"));
  });

  it("logger - to stdout, a line is written within a moment while the process runs on", async () => {
    const child = loggingChild("linger");
    try {
      // well before the child would exit of itself (60 s), however slowly it starts
      const [line] = (await once(createInterface({ input: child.stdout }), "line", { signal: AbortSignal.timeout(15_000) })) as [string];
      assert.equal((JSON.parse(line) as Record<string, unknown>)["msg"], "first line");
    } finally {
      child.kill();
    }
  });

  it("logger - to stdout, every line is written when the process exits", async () => {
    const child = loggingChild("exit");
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
    const [code] = (await once(child, "close")) as [number];
    assert.equal(code, 3);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as Record<string, unknown>)["msg"]),
      ["first line", "last line"],
    );
  });
});
