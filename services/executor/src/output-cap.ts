import { addReflection } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import type { ToolCallResult } from "./mcp-pool.js";

/**
 * The tool output size cap (OWASP LLM10, unbounded consumption): a tool's output and
 * error are cut to `maxBytes` (UTF-8, as JSON) before they are injected into the packet,
 * which travels through every stage, each model prompt and JetStream (whose messages are
 * bounded). The cut text ends with a marker, and the packet's reflection log says so.
 * Structured output that is too large becomes its JSON text, cut.
 */
export function capToolOutput(packet: Packet, tool: string, result: ToolCallResult, maxBytes: number): ToolCallResult {
  const output = capText(typeof result.output === "string" ? result.output : JSON.stringify(result.output), maxBytes);
  const error = result.error === undefined ? undefined : capText(result.error, maxBytes);
  const sizes = [output.originalBytes, error?.originalBytes].filter((bytes) => bytes !== undefined);
  if (sizes.length === 0) return result;
  addReflection(packet, {
    step: "tool_execution",
    summary: `${tool}: output of ${sizes.join(" and ")} bytes truncated to TOOL_OUTPUT_MAX_BYTES=${maxBytes}`,
  });
  return {
    ...result,
    ...(output.originalBytes === undefined ? {} : { output: output.text }),
    ...(error?.originalBytes === undefined ? {} : { error: error.text }),
  };
}

/** The marker a cut output ends with. */
export function truncationMarker(originalBytes: number, maxBytes: number): string {
  return `\n[truncated by Switchyard: the tool's output was ${originalBytes} bytes, the limit is ${maxBytes}]`;
}

/** `text` cut to `maxBytes` with the marker, and its size when it was cut. */
function capText(text: string, maxBytes: number): { text: string; originalBytes?: number } {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= maxBytes) return { text };
  return { text: cutUtf8(text, maxBytes) + truncationMarker(bytes, maxBytes), originalBytes: bytes };
}

/** The longest prefix of `text` within `maxBytes` bytes of UTF-8, never half a character. */
function cutUtf8(text: string, maxBytes: number): string {
  const prefix = Buffer.from(text, "utf8").subarray(0, maxBytes).toString("utf8");
  // A character cut in the middle decodes as U+FFFD; it is dropped, not shown.
  return prefix.endsWith("\uFFFD") && !text.startsWith(prefix) ? prefix.slice(0, -1) : prefix;
}
