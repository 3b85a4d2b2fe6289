/**
 * Seed 003's dynamic exposure for the MCP door: which tools a large catalog shows a caller
 * beside its core tools and the meta-tools.
 *
 * - A session (`_meta["io.switchyard/session"]` or the `x-switchyard-session` header): the tools
 *   routed for its recent turns, found with search_tools or called in it are listed to it, the
 *   latest MCP_SESSION_MAX_TOOLS of them, kept in NATS KV (McpSession) so that any replica lists
 *   the same. A tool found at run time appears in the session's next tools/list.
 * - Recent turns (`_meta["io.switchyard/turns"]`, the latest last): routed as a request would be,
 *   their best tools added to the session's.
 * - The user's metadata (`_meta["io.switchyard/user"]` `{industry, role}`, or the
 *   `x-switchyard-industry` / `x-switchyard-role` headers): MCP_USER_DOMAINS maps each value
 *   to domains, whose tools are listed.
 *
 * The door is stateless, so it cannot push `notifications/tools/list_changed`: a client sees a
 * changed list at its next tools/list.
 */
import { ConfigError } from "@switchyard/config";
import { create } from "@bufbuild/protobuf";
import { RouteRequestSchema, turnOf } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import type { GatewayDeps } from "../../shared/deps.js";

export const SESSION_META = "io.switchyard/session";
export const TURNS_META = "io.switchyard/turns";
export const USER_META = "io.switchyard/user";
const SESSION_HEADER = "x-switchyard-session";
const USER_HEADERS = { industry: "x-switchyard-industry", role: "x-switchyard-role" } as const;
/** Longest session id, turn and metadata value taken from a caller. */
const MAX_ID_CHARS = 128;
const MAX_TURN_CHARS = 4096;
const MAX_TURNS = 5;

/** Who is asking, beyond the tenant: read from a request's `_meta` and headers. */
export interface Caller {
  session?: string;
  /** The user's recent turns, the latest last. */
  turns: string[];
  /** Domains the user's metadata maps to (MCP_USER_DOMAINS). */
  domains: string[];
}

type Headers = Record<string, string | string[] | undefined> | undefined;

/** The caller of one MCP request. */
export function callerOf(meta: Record<string, unknown> | undefined, headers: Headers, userDomains: ReadonlyMap<string, readonly string[]>): Caller {
  const header = (name: string) => {
    const value = headers?.[name];
    return typeof value === "string" ? value : undefined;
  };
  const session = text(meta?.[SESSION_META], MAX_ID_CHARS) ?? text(header(SESSION_HEADER), MAX_ID_CHARS);
  const turnsMeta = meta?.[TURNS_META];
  const turns = Array.isArray(turnsMeta) ? turnsMeta.flatMap((t) => text(t, MAX_TURN_CHARS) ?? []).slice(-MAX_TURNS) : [];
  const user = (meta?.[USER_META] ?? {}) as Record<string, unknown>;
  const values = (["industry", "role"] as const).flatMap((key) => text(user[key], MAX_ID_CHARS) ?? text(header(USER_HEADERS[key]), MAX_ID_CHARS) ?? []);
  const domains = [...new Set(values.flatMap((v) => userDomains.get(v.toLowerCase()) ?? []))];
  return { ...(session ? { session } : {}), turns, domains };
}

function text(value: unknown, max: number): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, max) : undefined;
}

/**
 * The tools a large catalog lists to `caller` beside the core ones, in order: the session's
 * (after adding those routed for its turns), then those of its user's domains.
 */
export async function exposedTools(
  deps: GatewayDeps,
  tenant: string,
  caller: Caller,
  catalog: readonly ToolDefinition[],
  settings: { topK: number; keep: number },
): Promise<ToolDefinition[]> {
  let names: string[] = [];
  if (caller.turns.length > 0) {
    const [latest, ...earlier] = [...caller.turns].reverse();
    const history = earlier.reverse().map((turn) => turnOf("user", turn));
    const { candidates } = await deps.route(tenant, create(RouteRequestSchema, { message: latest!, history, topK: settings.topK }));
    names = candidates.filter((c) => !c.tool?.core).map((c) => c.tool?.name ?? "");
  }
  if (caller.session) {
    names = names.length > 0 ? await deps.exposeInSession(tenant, caller.session, names, settings.keep) : await deps.sessionTools(tenant, caller.session);
  }
  const byName = new Map(catalog.map((t) => [t.name, t]));
  const ofDomains = caller.domains.length > 0 ? catalog.filter((t) => t.domains.some((d) => caller.domains.includes(d))) : [];
  const shown = new Map<string, ToolDefinition>();
  for (const tool of [...names.flatMap((n) => byName.get(n) ?? []), ...ofDomains]) if (!tool.core) shown.set(tool.name, tool);
  return [...shown.values()];
}

/** Remembers tools a session found or used, so its next tools/list shows them. */
export async function remember(deps: GatewayDeps, tenant: string, caller: Caller, names: readonly string[], keep: number): Promise<void> {
  if (caller.session && names.length > 0) await deps.exposeInSession(tenant, caller.session, names, keep);
}

/** MCP_USER_DOMAINS: "healthcare=medical|records,developer=files|code" → industry or role value → its domains. */
export function parseUserDomains(setting: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const entry of setting.split(",").map((e) => e.trim()).filter(Boolean)) {
    const [value, domains] = entry.split("=").map((part) => part.trim());
    const list = (domains ?? "").split("|").map((d) => d.trim()).filter(Boolean);
    if (!value || list.length === 0) throw new ConfigError("MCP_USER_DOMAINS", `entry "${entry}" is not "value=domain|domain"`);
    map.set(value.toLowerCase(), list);
  }
  return map;
}
