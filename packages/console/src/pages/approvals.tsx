import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, seg, withQuery } from "../api.js";
import { formatTime, timeLeft } from "../format.js";
import { asError, useLoad, useNow } from "../hooks.js";
import { usePacketFeed } from "../packet-feed.js";
import type { Packet, PacketState, ToolDefinition } from "../types.js";
import { ErrorAlert, Fact, JsonBlock, PageTitle } from "../ui.js";

const WAITING: readonly PacketState[] = ["AWAITING_APPROVAL", "AWAITING_USER"];
const isWaiting = (packet: Packet): boolean => WAITING.includes(packet.state ?? "RECEIVED");
const newestFirst = (a: Packet, b: Packet): number => (b.header.createdAt ?? "").localeCompare(a.header.createdAt ?? "");

/** The later of two copies of one packet (the list and the event stream can cross). */
function later(known: Packet | undefined, incoming: Packet): Packet {
  if (!known) return incoming;
  return (incoming.header.updatedAt ?? "") >= (known.header.updatedAt ?? "") ? incoming : known;
}

/**
 * The inbox as a fetched list leaves it: the list's packets, plus those already shown that
 * ended (they keep their result in place); a waiting one the list no longer has ended
 * while the stream was away and is dropped.
 */
function mergeList(shown: Map<string, Packet>, list: Packet[]): Map<string, Packet> {
  const next = new Map<string, Packet>();
  const listed = new Set(list.map((packet) => packet.header.packetId));
  for (const [id, packet] of shown) if (listed.has(id) || !isWaiting(packet)) next.set(id, packet);
  for (const packet of list) next.set(packet.header.packetId, later(next.get(packet.header.packetId), packet));
  return next;
}

/**
 * `/console` (every waiting packet of the tenant) and `/console/approvals/:packetId` (the one
 * an approval link names): kept live by the packet events.
 */
export function ApprovalsPage({ params }: { params?: { packetId?: string } }) {
  const only = params?.packetId;
  const [shown, setShown] = useState<Map<string, Packet>>(new Map());
  const [error, setError] = useState<Error>();
  const [loaded, setLoaded] = useState(false);
  const now = useNow();
  const catalog = useLoad(() => api<{ tools?: ToolDefinition[] }>("/v1/tools"), []);
  const sideEffects = useMemo(() => new Map((catalog.data?.tools ?? []).map((tool) => [tool.name, tool.sideEffect ?? "READ"])), [catalog.data]);

  useEffect(() => {
    setShown(new Map());
    setLoaded(false);
  }, [only]);

  const fetchList = useCallback(() => {
    const list = only
      ? api<Packet>(`/v1/packets/${seg(only)}`).then((packet) => [packet])
      : api<{ packets?: Packet[] }>(withQuery("/v1/packets", { state: [...WAITING], limit: 200 })).then((answer) => answer.packets ?? []);
    list.then(
      (packets) => {
        setShown((current) => mergeList(current, packets));
        setError(undefined);
        setLoaded(true);
      },
      (failure: unknown) => setError(asError(failure)),
    );
  }, [only]);
  useEffect(fetchList, [fetchList]);

  const update = useCallback(
    (packet: Packet) =>
      setShown((current) => {
        const id = packet.header.packetId;
        const relevant = only ? id === only : current.has(id) || isWaiting(packet);
        if (!relevant) return current;
        return new Map(current).set(id, later(current.get(id), packet));
      }),
    [only],
  );
  usePacketFeed(update, fetchList);

  const packets = [...shown.values()].sort(newestFirst);
  const waiting = packets.filter(isWaiting).length;
  return (
    <>
      <PageTitle>Approvals</PageTitle>
      {only && (
        <p>
          One held call, as its approval link names it. <a href="/console">All approvals</a>
        </p>
      )}
      <p class="summary" aria-live="polite">
        {!loaded ? "Loading…" : waiting === 0 ? "Nothing waits for a decision." : `${waiting} waiting for a decision.`}
      </p>
      <ErrorAlert error={error} />
      <div role="list" class="cards">
        {packets.map((packet) => (
          <div role="listitem" key={packet.header.packetId}>
            <ApprovalItem packet={packet} sideEffect={sideEffects.get(packet.toolRouting?.selectedTool?.toolName ?? "")} now={now} onChanged={update} />
          </div>
        ))}
      </div>
    </>
  );
}

/** What became of a packet, for its status line: state, execution status and reason. */
function outcome(packet: Packet): string {
  const status = packet.toolRouting?.executionStatus;
  return [packet.state, status && status !== "PENDING" ? status : undefined].filter(Boolean).join(" · ") + (packet.stateReason ? `: ${packet.stateReason}` : "");
}

/** One held call: what it would do, and Approve / Deny for it. */
function ApprovalItem({ packet, sideEffect, now, onChanged }: { packet: Packet; sideEffect: string | undefined; now: number; onChanged: (packet: Packet) => void }) {
  const [acting, setActing] = useState<string>();
  const [denying, setDenying] = useState(false);
  const [error, setError] = useState<Error>();
  const id = packet.header.packetId;
  const routing = packet.toolRouting ?? {};
  const approval = routing.approval ?? {};
  const tool = routing.selectedTool?.toolName ?? "(no tool)";
  const awaitingApproval = packet.state === "AWAITING_APPROVAL";

  const act = (verb: "approve" | "deny", body: unknown, doing: string) => {
    setActing(doing);
    setError(undefined);
    api<Packet>(`/v1/packets/${seg(id)}/${verb}`, { method: "POST", body }).then(
      (answer) => {
        setActing(undefined);
        setDenying(false);
        onChanged(answer);
      },
      (failure: unknown) => {
        setActing(undefined);
        setError(asError(failure));
      },
    );
  };

  return (
    <article class="card">
      <header class="card-head">
        <h2>{tool}</h2>
        {sideEffect && <span class={`badge ${sideEffect === "WRITE" ? "badge-write" : ""}`}>{sideEffect}</span>}
        <span class="badge">{packet.state}</span>
      </header>
      <p class="request">{packet.content?.originalPrompt}</p>
      <dl class="facts">
        <Fact term="Call hash">
          <code>{approval.callHash}</code>
        </Fact>
        <Fact term="Session">{packet.header.sessionId}</Fact>
        <Fact term="Tenant">{packet.header.tenant}</Fact>
        <Fact term="Requested at">{formatTime(approval.requestedAt ?? packet.header.createdAt)}</Fact>
        {awaitingApproval && <Fact term="Time left">{timeLeft(approval.expiresAt, now)}</Fact>}
        <Fact term="Packet">
          <a href={`/console/packets/${id}`}>{id}</a>
        </Fact>
      </dl>
      <h3>Arguments</h3>
      <JsonBlock value={routing.selectedTool?.params ?? {}} />
      {packet.state === "AWAITING_USER" && <p>The pipeline asks the user: {packet.stateReason}. The answer comes as a new request.</p>}
      {awaitingApproval && !denying && (
        <div class="actions">
          <button type="button" class="primary" disabled={!!acting} onClick={() => act("approve", approval.callHash ? { callHash: approval.callHash } : {}, "Approving…")}>
            Approve
          </button>
          <button type="button" disabled={!!acting} onClick={() => setDenying(true)}>
            Deny
          </button>
        </div>
      )}
      {awaitingApproval && denying && (
        <DenyForm id={id} busy={!!acting} onSend={(reason) => act("deny", reason ? { reason } : {}, "Denying…")} onCancel={() => setDenying(false)} />
      )}
      <ErrorAlert error={error} />
      <p role="status" class="outcome">
        {acting ?? (isWaiting(packet) ? "" : outcome(packet))}
      </p>
    </article>
  );
}

/** The reason for a denial, asked in place; its field takes the focus when it opens. */
function DenyForm({ id, busy, onSend, onCancel }: { id: string; busy: boolean; onSend: (reason: string) => void; onCancel: () => void }) {
  const [reason, setReason] = useState("");
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const submit = (event: Event) => {
    event.preventDefault();
    onSend(reason.trim());
  };
  return (
    <form class="actions" onSubmit={submit}>
      <label for={`reason-${id}`}>Reason</label>
      <input id={`reason-${id}`} ref={field} type="text" value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
      <button type="submit" class="danger" disabled={busy}>
        Send denial
      </button>
      <button type="button" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
