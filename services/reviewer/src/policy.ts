/**
 * Policy, in code and never left to a model: what a reviewed tool call may do, given its
 * side-effect class and the reviewer's switches (seed 000 §8: dry-run by default, approval
 * for dangerous operations).
 *
 * | side effect | switch off | switch on, not trusted | switch on, trusted |
 * | READ        | execute    | execute                | execute            |
 * | WRITE       | dry-run    | await-approval         | execute            |
 * | EXECUTE     | dry-run    | await-approval         | execute            |
 *
 * The switch is ALLOW_WRITE_TOOLS for WRITE and ALLOW_EXECUTE_TOOLS for EXECUTE; trust
 * (TRUSTED_TOOLS) only skips the approval, it never turns a switched-off kind on.
 */
import { parseList } from "@switchyard/config";
import { ownToolName, ToolDefinition_SideEffect } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { changesThings, splitWords, toolActions } from "@switchyard/request-text";
import type { Config } from "./config.js";

export type PolicyAction = "execute" | "dry-run" | "await-approval";

export interface PolicyDecision {
  action: PolicyAction;
  reason: string;
}

export type PolicyConfig = Pick<Config, "ALLOW_WRITE_TOOLS" | "ALLOW_EXECUTE_TOOLS" | "TRUSTED_TOOLS">;

/** The catalog names in TRUSTED_TOOLS ("a.b, c.d" → ["a.b", "c.d"]). */
export function trustedTools(config: Pick<Config, "TRUSTED_TOOLS">): string[] {
  return parseList(config.TRUSTED_TOOLS);
}

/** What may happen to a call of `toolName`, whose side-effect class is `sideEffect`; see the module table. */
export function decidePolicy(sideEffect: ToolDefinition_SideEffect, toolName: string, config: PolicyConfig): PolicyDecision {
  if (sideEffect === ToolDefinition_SideEffect.READ) {
    return { action: "execute", reason: `${toolName} only reads, so it runs without approval.` };
  }
  // Anything not READ or WRITE (EXECUTE, or a class added later) gets the strictest treatment.
  const kind = sideEffect === ToolDefinition_SideEffect.WRITE ? "write" : "execute";
  const allowed = kind === "write" ? config.ALLOW_WRITE_TOOLS : config.ALLOW_EXECUTE_TOOLS;
  const flag = kind === "write" ? "ALLOW_WRITE_TOOLS" : "ALLOW_EXECUTE_TOOLS";
  const isKind = `is ${kind === "write" ? "a write" : "an execute"} tool`;
  if (!allowed) {
    return {
      action: "dry-run",
      reason: `${toolName} ${isKind} and ${flag} is off; set ${flag}=true to run ${kind} tools with approval.`,
    };
  }
  if (trustedTools(config).includes(toolName)) {
    return { action: "execute", reason: `${toolName} ${isKind}, ${flag} is on and the tool is in TRUSTED_TOOLS, so it runs.` };
  }
  return {
    action: "await-approval",
    reason: `${toolName} ${isKind} and is not in TRUSTED_TOOLS, so it waits for the user's approval.`,
  };
}

/**
 * Words in a tool's name that mean it runs or changes things although the shared verb table
 * (@switchyard/request-text) does not list them as such; policy errs on the strict side.
 */
const EXTRA_EXECUTE_WORDS = new Set(["shell", "eval", "spawn"]);
const EXTRA_WRITE_WORDS = new Set(["set", "copy", "upload", "send", "post", "toggle", "kill"]);

/**
 * The side-effect class policy uses: the catalog's, made stricter when the tool's name says it
 * writes or runs things. READ is the proto's zero value, so a tool the catalog never classified
 * arrives as READ; a name such as "delete_entities" must not slip through as a read. Never looser
 * than the catalog.
 */
export function effectiveSideEffect(tool: Pick<ToolDefinition, "name" | "server" | "serverToolName" | "sideEffect">): {
  sideEffect: ToolDefinition_SideEffect;
  tightened: boolean;
} {
  const local = ownToolName(tool);
  const words = splitWords(local);
  const actions = [...toolActions(local)];
  const implied = actions.includes("run") || words.some((w) => EXTRA_EXECUTE_WORDS.has(w))
    ? ToolDefinition_SideEffect.EXECUTE
    : actions.some(changesThings) || words.some((w) => EXTRA_WRITE_WORDS.has(w))
      ? ToolDefinition_SideEffect.WRITE
      : ToolDefinition_SideEffect.READ;
  const declared = tool.sideEffect;
  return strictness(implied) > strictness(declared) ? { sideEffect: implied, tightened: true } : { sideEffect: declared, tightened: false };
}

function strictness(sideEffect: ToolDefinition_SideEffect): number {
  if (sideEffect === ToolDefinition_SideEffect.READ) return 0;
  if (sideEffect === ToolDefinition_SideEffect.WRITE) return 1;
  return 2;
}
