/**
 * Tool pinning (MCP security best practices: tool poisoning and "rug pulls"). A catalog
 * tool keeps `pin_hash`, the sha256 of the definition the operator accepted (its name,
 * description and input schema as canonical JSON). When the server later serves another
 * definition under the same name, the tool is quarantined, neither routed nor called,
 * until the new definition is approved (`POST /v1/tools/{name}/approve`).
 *
 * - A tool seen for the first time is pinned as it is (trust on first use), unless its
 *   description holds hidden instructions, or its server is one to review (`trust:
 *   review`, a server registered at run time by default): then nothing is pinned and it
 *   is quarantined until approved.
 * - A server that goes back to the pinned definition lifts the quarantine by itself.
 * - A tool its server no longer serves keeps its entry, quarantined, with its pin: when it
 *   comes back, the pin decides as for any other change.
 * - Catalog entries written before pinning existed (no pin, not quarantined) are pinned
 *   as first seen, so an upgrade does not quarantine the whole catalog.
 * - Whenever a tool is pinned (first use, approval) its entry records the definition pinned
 *   (`pinned`: description, input schema, when), kept while a changed definition is
 *   quarantined, so that a person can compare the two before approving. An entry pinned
 *   before this was recorded gets it (without a time) the next time its server serves
 *   the pinned definition.
 */
import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { NOT_SERVED } from "@switchyard/bus";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { canonicalJson, PinnedDefinitionSchema, ToolDefinitionSchema } from "@switchyard/packet";
import type { PinnedDefinition, ToolDefinition } from "@switchyard/packet";
import { hiddenInstructionFlags } from "./hidden-instructions.js";
import type { ServerTrust } from "./servers-config.js";

/** Hashes by definition object: a served definition is replaced, never changed, when its server's tools change. */
const pinHashes = new WeakMap<object, string>();

/** sha256 (hex) of the tool's name, description and input schema as canonical JSON. */
export function pinHashOf(tool: Pick<ToolDefinition, "name" | "description" | "inputSchema">): string {
  let hash = pinHashes.get(tool);
  if (hash === undefined) {
    const definition = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? {} };
    hash = createHash("sha256").update(canonicalJson(definition)).digest("hex");
    pinHashes.set(tool, hash);
  }
  return hash;
}

/** The flag of a new tool of a server whose tools are each reviewed before use. */
export const UNREVIEWED = "new tool of a server registered for review: approve it to use it";

/**
 * The catalog entry for `served` (the definition the server serves now), given the entry
 * the catalog holds (`stored`, undefined for a new tool): its pin, quarantine and flags.
 * `trust` is its server's: "review" pins no new tool.
 */
export function pinTool(served: ToolDefinition, stored: ToolDefinition | undefined, trust: ServerTrust = "first-use"): ToolDefinition {
  const hash = pinHashOf(served);
  const hidden = hiddenInstructionFlags(served);
  const known = stored !== undefined && (stored.pinHash !== "" || stored.quarantined);
  const pin = known ? stored.pinHash : hidden.length > 0 || trust === "review" ? "" : hash;
  const changed = pin !== "" && pin !== hash;
  const unreviewed = pin === "" && trust === "review" ? [UNREVIEWED] : [];
  const flags = changed ? [`definition changed since it was pinned (pinned ${short(pin)}, served ${short(hash)})`, ...hidden] : [...unreviewed, ...hidden];
  // pinned now: the definition as served; pinned before: as recorded then, else (pinned before it was recorded) as served when that is it
  const pinned = !known ? (pin === "" ? undefined : pinnedDefinition(served, timestampNow())) : (stored.pinned ?? (pin === hash ? pinnedDefinition(served) : undefined));
  return create(ToolDefinitionSchema, { ...served, pinHash: pin, quarantined: pin !== hash, flags, pinned });
}

/** The catalog entry for `served` once an operator approved it: pinned as served, out of quarantine. */
export function approveTool(served: ToolDefinition): ToolDefinition {
  // The hidden-instruction flags stay on the entry: approved, but still worth a look.
  return create(ToolDefinitionSchema, {
    ...served,
    pinHash: pinHashOf(served),
    quarantined: false,
    flags: hiddenInstructionFlags(served),
    pinned: pinnedDefinition(served, timestampNow()),
  });
}

/** What a pin stands for (PinnedDefinition): the tool's description and input schema, and when they were pinned, if known. */
function pinnedDefinition(tool: ToolDefinition, pinnedAt?: Timestamp): PinnedDefinition {
  return create(PinnedDefinitionSchema, { description: tool.description, inputSchema: tool.inputSchema, pinnedAt });
}


/** The catalog entry of a tool its server stopped serving: out of routing, its pin kept. */
export function retireTool(stored: ToolDefinition): ToolDefinition {
  if (stored.flags.includes(NOT_SERVED)) return stored;
  return create(ToolDefinitionSchema, { ...stored, quarantined: true, flags: [NOT_SERVED, ...stored.flags] });
}

function short(hash: string): string {
  return hash.slice(0, 12);
}
