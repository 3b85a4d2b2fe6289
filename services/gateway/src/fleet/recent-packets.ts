/**
 * The console's view of the packets bucket (GET /v1/packets, /v1/packets/events, /v1/fleet):
 * each tenant's most recent packets, indexed in memory from the gateway's watch of the bucket
 * (stored-packets.ts in @switchyard/bus), and the changes to them as they are stored. The
 * index is bounded: it keeps each tenant's newest RECENT_PACKETS_PER_TENANT packets by
 * creation time as their stored bytes (at most that many × the largest packet per tenant); a
 * page it cannot answer whole, older packets or before the watch has read the bucket once, is
 * read from the bucket itself.
 */
import { timestampDate, timestampMs } from "@bufbuild/protobuf/wkt";
import type { KV } from "@nats-io/kv";
import { decodePacket, decodePacketSummary, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { ListPacketsRequest, Packet, PacketSummary } from "@switchyard/packet";
import type { StoredPacket, StoredPacketObserver } from "@switchyard/bus";

/** Packets the index keeps per tenant: its newest by creation time. */
export const RECENT_PACKETS_PER_TENANT = 1000;
/** A page's size when the request names none. */
export const DEFAULT_PAGE = 50;

/** A stored packet as the index keeps it: what the list sorts and filters by without decoding, and its bytes. */
export interface IndexedPacket {
  createdAt: number;
  storedAt: number;
  summary: PacketSummary;
  bytes: Uint8Array;
}

/** A packet of the tenant's stored from now on; the whole packet. */
export type PacketListener = (packet: Packet) => void;

/** The bucket's packets of one tenant, read key by key: the index's fallback. */
export async function storedPacketsOf(packets: KV, tenant: string): Promise<IndexedPacket[]> {
  const found: IndexedPacket[] = [];
  for await (const key of await packets.keys()) {
    const entry = await packets.get(key);
    if (!entry || entry.operation !== "PUT" || entry.value.length === 0) continue;
    const summary = decodePacketSummary(entry.value);
    if (summary.header?.tenant === tenant) found.push(indexed(summary, entry.value, entry.created.getTime()));
  }
  return found;
}

function indexed(summary: PacketSummary, bytes: Uint8Array, storedAt: number): IndexedPacket {
  const created = summary.header?.createdAt;
  return { createdAt: created ? timestampMs(created) : 0, storedAt, summary, bytes };
}

/** Each tenant's recent packets, fed by `observe`; see the module's comment. */
export class RecentPackets {
  private readonly byTenant = new Map<string, Map<string, IndexedPacket>>();
  /** Whose packet each key is, for a deletion (which carries no packet). */
  private readonly tenantOf = new Map<string, string>();
  /** Tenants some of whose older packets the bound dropped. */
  private readonly truncated = new Set<string>();
  private readonly listeners = new Map<string, Set<PacketListener>>();
  /** True once the watch delivered every packet the bucket held when it began. */
  private initialized = false;

  /**
   * `retentionMs`: the bucket's entry lifetime (PACKET_RETENTION_HOURS); an entry stored longer
   * ago is gone from it without a deletion. `bucketWasEmpty`: nothing to wait for before answering.
   */
  constructor(
    private readonly retentionMs = Number.POSITIVE_INFINITY,
    private readonly perTenant = RECENT_PACKETS_PER_TENANT,
    bucketWasEmpty = false,
  ) {
    this.initialized = bucketWasEmpty;
  }

  /** The observer of the bucket's watch (stored-packets.ts in @switchyard/bus). */
  readonly observe: StoredPacketObserver = (entry: StoredPacket) => {
    if (entry.update) this.initialized = true;
    const tenantBefore = this.tenantOf.get(entry.key);
    if (tenantBefore !== undefined) this.byTenant.get(tenantBefore)?.delete(entry.key);
    if (!entry.summary || !entry.bytes) {
      this.tenantOf.delete(entry.key);
      return;
    }
    const tenant = entry.summary.header?.tenant ?? "";
    const own = this.byTenant.get(tenant) ?? new Map<string, IndexedPacket>();
    this.byTenant.set(tenant, own);
    own.set(entry.key, indexed(entry.summary, entry.bytes, entry.storedAt));
    this.tenantOf.set(entry.key, tenant);
    if (own.size > this.perTenant) this.dropOldest(tenant, own);
    const listening = this.listeners.get(tenant);
    if (entry.update && listening && listening.size > 0) {
      const packet = decodePacket(entry.bytes);
      for (const listener of listening) listener(packet);
    }
  };

  /** Calls `listener` with each packet of `tenant` stored from now on; returns its stop. */
  subscribe(tenant: string, listener: PacketListener): () => void {
    const listening = this.listeners.get(tenant) ?? new Set<PacketListener>();
    this.listeners.set(tenant, listening.add(listener));
    return () => {
      listening.delete(listener);
      if (listening.size === 0) this.listeners.delete(tenant);
    };
  }

  /**
   * The page `request` asks for from the index, or undefined when the index cannot tell it
   * whole (the watch has not read the bucket yet, or the page reaches past the packets kept).
   */
  list(tenant: string, request: ListPacketsRequest, now = Date.now()): Packet[] | undefined {
    if (!this.initialized) return undefined;
    const page = selectPackets(this.current(tenant, now), request);
    return page.length < pageSize(request) && this.truncated.has(tenant) ? undefined : page;
  }

  /** The tenant's packets the index keeps, or undefined until the watch has read the bucket. */
  packetsOf(tenant: string, now = Date.now()): IndexedPacket[] | undefined {
    return this.initialized ? this.current(tenant, now) : undefined;
  }

  private current(tenant: string, now: number): IndexedPacket[] {
    return [...(this.byTenant.get(tenant)?.values() ?? [])].filter((entry) => entry.storedAt + this.retentionMs >= now);
  }

  private dropOldest(tenant: string, own: Map<string, IndexedPacket>): void {
    let oldest: [string, IndexedPacket] | undefined;
    for (const pair of own) if (!oldest || pair[1].createdAt < oldest[1].createdAt) oldest = pair;
    own.delete(oldest![0]);
    this.tenantOf.delete(oldest![0]);
    this.truncated.add(tenant);
  }
}

function pageSize(request: ListPacketsRequest): number {
  return request.limit || DEFAULT_PAGE;
}

/** The page of `entries` that `request` asks for, newest first; packets are decoded only for the filters their header cannot answer. */
export function selectPackets(entries: readonly IndexedPacket[], request: ListPacketsRequest): Packet[] {
  const before = request.before ? timestampDate(request.before).getTime() : Number.POSITIVE_INFINITY;
  const states = new Set(request.states);
  const needsBody = request.status !== "" || request.tool !== "" || request.query !== "";
  const page: Packet[] = [];
  for (const entry of [...entries].sort((a, b) => b.createdAt - a.createdAt)) {
    if (page.length >= pageSize(request)) break;
    const { header, state } = entry.summary;
    if (entry.createdAt >= before || (states.size > 0 && !states.has(state))) continue;
    if (request.sessionId !== "" && header?.sessionId !== request.sessionId) continue;
    const packet = decodePacket(entry.bytes);
    if (needsBody && !matchesBody(packet, request)) continue;
    page.push(packet);
  }
  return page;
}

/** The filters on a packet's body: its call's status, its tool, the words of its request. */
function matchesBody(packet: Packet, request: ListPacketsRequest): boolean {
  const routing = packet.toolRouting;
  if (request.tool !== "" && routing?.selectedTool?.toolName !== request.tool) return false;
  if (request.status !== "" && callStatus(packet) !== request.status && executionStatusName(packet) !== request.status) return false;
  if (request.query !== "") {
    const text = packet.content?.originalPrompt.toLowerCase() ?? "";
    if (!text.includes(request.query.toLowerCase())) return false;
  }
  return true;
}

/** How the packet's last call ended: "success", "error", or "" when it made none. */
function callStatus(packet: Packet): string {
  const last = packet.toolRouting?.calls.at(-1);
  return last === undefined ? "" : last.success ? "success" : "error";
}

function executionStatusName(packet: Packet): string {
  return ToolRoutingState_ExecutionStatus[packet.toolRouting?.executionStatus ?? ToolRoutingState_ExecutionStatus.PENDING] ?? "";
}

/** What GET /v1/packets's `status` may be: how the last call ended, or the packet's execution status. */
export const PACKET_STATUSES = ["success", "error", ...Object.keys(ToolRoutingState_ExecutionStatus).filter((key) => Number.isNaN(Number(key)))];
