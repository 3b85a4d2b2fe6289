import { create } from "@bufbuild/protobuf";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import {
  addDataField,
  addReflection,
  approvalHolds,
  finish,
  ownToolName,
  Packet_State,
  recordCall,
  routingOf,
  TOOL_RESULT_FIELD,
  ToolDefinition_SideEffect,
  ToolExecutionResultSchema,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { Packet, StageOutcome } from "@switchyard/packet";
import { cappedTimeoutMs } from "@switchyard/bus";
import type { Config } from "./config.js";
import { callOnce, executionKey } from "./idempotent-execution.js";
import type { ExecutionLedger, OnceOutcome } from "./idempotent-execution.js";
import type { McpPool, ToolCallResult } from "./mcp-pool.js";
import { LIST_WITH_SIZES, withoutOutsideSizes } from "./directory-sizes.js";
import { capToolOutput } from "./output-cap.js";
import { withRelativePaths } from "./relative-paths.js";
import type { VetCall } from "./tool-guard.js";

export interface ExecuteDeps {
  config: Pick<Config, "MCP_CALL_TIMEOUT_MS" | "TOOL_OUTPUT_MAX_BYTES">;
  callTool: McpPool["callTool"];
  /** The executor's own checks before a call (tool-guard.ts: quarantine, pin, arguments); main.ts always sets it. */
  vetCall?: VetCall;
  /** The executions bucket that makes each call happen once per packet and hop; absent: calls are made as they come. */
  ledger?: ExecutionLedger;
  /**
   * The directories a server serves (relative-paths.ts `rootsByServer`); a tool's error and output name paths relative to
   * them and none outside them, and list_directory_with_sizes shows no size of a link out of them (directory-sizes.ts).
   */
  rootsOf?: (server: string) => readonly string[];
}

/**
 * The execute stage: runs the selected tool (or only describes the call when
 * the reviewer asked for a dry run), injects the result into the packet as
 * seed 000 §5.2 does, and hands the packet back to intent, which decides
 * whether another step follows and enforces max_reinjections.
 */
export async function executeStage(packet: Packet, deps: ExecuteDeps): Promise<StageOutcome> {
  const routing = routingOf(packet);
  const selected = routing.selectedTool;
  const candidate = selected && routing.candidates.find((c) => c.tool?.name === selected.toolName);
  if (!selected || !candidate?.tool) {
    // The selector may only pick among the router's candidates; anything else is never called.
    const reason = selected
      ? `${selected.toolName} is not among the routed candidates; not executed`
      : "no tool selected; nothing to execute";
    return failExecution(packet, reason);
  }

  const tool = selected.toolName;
  const params: JsonObject = selected.params ?? {};
  const source = `mcp:${candidate.tool.server}`;

  if (routing.dryRun) {
    // The reviewer's reasoning starts with "dry run: " and what would let the call run.
    const why = routing.reviewReasoning || `dry run: the review asked for one; ${tool} was not run`;
    const result: ToolCallResult = {
      success: true,
      output: { dryRun: true, tool, arguments: params },
      executionTimeMs: 0,
    };
    inject(packet, tool, params, result, source, { dryRun: true });
    routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
    addReflection(packet, {
      step: "tool_execution",
      summary: `${tool} not executed: ${why}`,
      confidence: routing.reviewConfidence,
    });
    finish(packet, Packet_State.COMPLETED, why);
    return { done: true };
  }

  if (!approvalHolds(packet)) {
    // The reviewer asked for the user's approval of this exact call; without it nothing runs.
    const reason = `${tool} not executed: it needs the user's approval of this exact call (tool and arguments), and has none`;
    return failExecution(packet, reason);
  }

  const refusal = await deps.vetCall?.(tool, params, packet.header?.tenant ?? "");
  if (refusal) {
    return failExecution(packet, refusal);
  }

  const roots = deps.rootsOf?.(candidate.tool.server) ?? [];
  const listsSizes = ownToolName(candidate.tool) === LIST_WITH_SIZES;
  // The packet's deadline caps the call's time.
  const call = async () => {
    const result = await deps.callTool(tool, params, { timeoutMs: deps.config.MCP_CALL_TIMEOUT_MS, maxTimeoutMs: cappedTimeoutMs(packet, Infinity) });
    return listsSizes ? withoutOutsideSizes(result, roots, params) : result;
  };
  const { packetId, hop } = packet.header!;
  const once: OnceOutcome = deps.ledger
    ? await callOnce(deps.ledger, executionKey(packetId, hop), candidate.tool.sideEffect === ToolDefinition_SideEffect.READ, call)
    : { kind: "called", result: await call() };
  if (once.kind === "unknown") {
    return failExecution(packet, `${tool}: ${once.reason}`);
  }
  const relative = withRelativePaths(once.result, roots);
  const result = capToolOutput(packet, tool, relative, deps.config.TOOL_OUTPUT_MAX_BYTES);
  inject(packet, tool, params, result, source);
  routing.executionStatus = result.success
    ? ToolRoutingState_ExecutionStatus.EXECUTED
    : ToolRoutingState_ExecutionStatus.FAILED;
  addReflection(packet, {
    step: "tool_execution",
    summary: result.success
      ? `Executed ${tool}: success in ${result.executionTimeMs} ms${once.kind === "reused" ? " (the recorded result of an earlier delivery)" : ""}`
      : `Executed ${tool}: failed in ${result.executionTimeMs} ms: ${result.error ?? "unknown error"}`,
    confidence: routing.reviewConfidence,
    durationMs: result.executionTimeMs,
  });

  routing.reinjectionCount += 1;
  packet.state = Packet_State.REINJECTED;
  return { next: "intent" };
}

/**
 * Seed 000 §5.2, with the output stored once: the result as a data field (the
 * one copy of the output, kept for the later steps and the answer) and the
 * execution result without it (success, error, time). A dry run is marked in
 * the data field so nobody mistakes it for a real result. The seed's
 * sketchpad copy of the latest output is not kept: it was a third copy of
 * the output on every later hop (`latestToolResult` reads the last data field).
 * The call joins the packet's calls, so the reviewer can stop a repeat.
 */
function inject(
  packet: Packet,
  tool: string,
  params: JsonObject,
  result: ToolCallResult,
  source: string,
  marks: { dryRun?: true } = {},
): void {
  const error: JsonValue = result.error ?? null;
  addDataField(packet, {
    key: TOOL_RESULT_FIELD,
    value: { tool, params, success: result.success, output: result.output, error, ...marks },
    type: "tool_execution_result",
    source,
  });
  recordCall(packet, { success: result.success, dryRun: marks.dryRun === true });
  routingOf(packet).executionResult = create(ToolExecutionResultSchema, {
    success: result.success,
    error: result.error ?? "",
    executionTimeMs: result.executionTimeMs,
  });
}

/** Ends the packet FAILED without a tool result (not called, refused, or an unknown outcome), saying why. */
function failExecution(packet: Packet, reason: string): StageOutcome {
  routingOf(packet).executionStatus = ToolRoutingState_ExecutionStatus.FAILED;
  addReflection(packet, { step: "tool_execution", summary: reason });
  finish(packet, Packet_State.FAILED, reason);
  return { done: true };
}
