import type { JsonObject } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import type { CatalogMirror } from "@switchyard/bus";
import { toolVisibleTo } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { describeErrors, validateArguments } from "@switchyard/tool-schema";
import { readTool } from "./catalog-sync.js";
import { pinHashOf } from "./tool-pin.js";

/** Why a call must not run, or undefined when it may. */
export type VetCall = (tool: string, args: JsonObject, tenant: string) => Promise<string | undefined>;

/**
 * The executor's own checks before any tool call, whatever the packet says (its
 * candidates' copies of the tool may be stale, and the reviewer may have been another
 * version): the tool is one of this executor's servers' and its server is open to the
 * packet's tenant (the router and gateway hide it from others; this holds even if a
 * packet names it), its definition as served now is
 * the one pinned in the catalog and not quarantined, and the arguments satisfy its input
 * schema as served now (remote `$ref`s are never fetched: @switchyard/tool-schema).
 * With a mirror of the catalog (`mirrorCatalog`) an allowed call costs no NATS round trip.
 */
export function toolGuard(catalog: KV, served: () => ToolDefinition[], mirror?: CatalogMirror): VetCall {
  return async (name, args, tenant) => {
    const tool = served().find((candidate) => candidate.name === name);
    if (!tool) return `${name} is not a tool of this executor's MCP servers; not executed`;
    if (!toolVisibleTo(tool, tenant)) return `${name} is not a tool of tenant ${tenant}; not executed`;
    // The mirror answers from memory; a refusal is checked against the bucket itself, which
    // the mirror may trail by a moment (an approval just made must not be refused).
    const allowedByMirror = mirror !== undefined && pinRefusal(name, tool, mirror.get(name)) === undefined;
    const refusal = allowedByMirror ? undefined : pinRefusal(name, tool, await readTool(catalog, name));
    if (refusal) return refusal;
    const valid = validateArguments(tool.inputSchema ?? {}, args);
    if (!valid.ok) return `${name} not executed: its arguments do not match its input schema: ${describeErrors(valid.errors)}`;
    return undefined;
  };
}

/** Why the catalog entry forbids calling `tool` as served now, or undefined when it allows it. */
function pinRefusal(name: string, tool: ToolDefinition, entry: ToolDefinition | undefined): string | undefined {
  if (!entry) return `${name} is not in the catalog; not executed`;
  const approve = `approve it with POST /v1/tools/${encodeURIComponent(name)}/approve`;
  if (entry.quarantined) return `${name} is quarantined (${entry.flags.join("; ")}); not executed: ${approve}`;
  if (entry.pinHash !== pinHashOf(tool)) return `${name} is quarantined: its server serves a definition that is not the pinned one; not executed: ${approve}`;
  return undefined;
}
