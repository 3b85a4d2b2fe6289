import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, seg, withQuery } from "../api.js";
import { formatTime } from "../format.js";
import { asError, useLoad } from "../hooks.js";
import { PACKET_STATES } from "../types.js";
import type { Packet } from "../types.js";
import { ErrorAlert, PageTitle, Table } from "../ui.js";

const PAGE_SIZE = 50;
const FILTERS = ["state", "status", "tool", "sessionId", "query", "before"] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** An RFC 3339 time as a datetime-local input's value (the reader's local time), or "". */
function localInputValue(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  const date = new Date(time);
  return new Date(time - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** `/console/packets`: the tenant's packets, newest first, filtered by the address's query. */
export function PacketsPage() {
  const { query, route } = useLocation();
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query[name] ?? ""])) as Filters;
  const key = FILTERS.map((name) => filters[name]).join("\u0000");
  const [older, setOlder] = useState<{ key: string; packets: Packet[]; error?: Error; done: boolean }>({ key, packets: [], done: false });
  const first = useLoad(() => api<{ packets?: Packet[] }>(withQuery("/v1/packets", { ...filters, limit: PAGE_SIZE })), [key]);

  const pages = older.key === key ? older : { key, packets: [], done: false };
  const packets = [...(first.data?.packets ?? []), ...pages.packets];
  const more = !pages.done && (first.data?.packets?.length ?? 0) === PAGE_SIZE;

  const search = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const chosen = Object.fromEntries(FILTERS.map((name) => [name, String(form.get(name) ?? "").trim()]));
    // datetime-local is the reader's local time without a zone; the API wants RFC 3339.
    if (chosen.before) chosen.before = new Date(chosen.before).toISOString();
    route(withQuery("/console/packets", chosen));
  };
  const loadOlder = () => {
    const before = packets.at(-1)?.header.createdAt;
    api<{ packets?: Packet[] }>(withQuery("/v1/packets", { ...filters, limit: PAGE_SIZE, before })).then(
      (answer) => setOlder({ key, packets: [...pages.packets, ...(answer.packets ?? [])], done: (answer.packets?.length ?? 0) < PAGE_SIZE }),
      (failure: unknown) => setOlder({ ...pages, error: asError(failure) }),
    );
  };

  return (
    <>
      <PageTitle>Packets</PageTitle>
      <form class="filters" role="search" aria-label="Packets" onSubmit={search} key={key}>
        <label>
          State
          <select name="state">
            <option value="">any</option>
            {PACKET_STATES.map((state) => (
              <option key={state} value={state} selected={state === filters.state}>
                {state}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <input name="status" defaultValue={filters.status} placeholder="success, error…" />
        </label>
        <label>
          Tool
          <input name="tool" defaultValue={filters.tool} placeholder="filesystem.read_text_file" />
        </label>
        <label>
          Session
          <input name="sessionId" defaultValue={filters.sessionId} />
        </label>
        <label>
          Text
          <input name="query" type="search" defaultValue={filters.query} />
        </label>
        <label>
          Created before
          <input name="before" type="datetime-local" defaultValue={localInputValue(filters.before)} />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorAlert error={first.error ?? pages.error} />
      <p class="summary" aria-live="polite">
        {first.loading && !first.data ? "Loading…" : `${packets.length} packet${packets.length === 1 ? "" : "s"}${more ? " (more below)" : ""}.`}
      </p>
      {packets.length > 0 && (
        <Table caption="The tenant's packets, newest first" headers={["Packet", "Created", "State", "Tool", "Request", "Session"]}>
          {packets.map((packet) => (
            <tr key={packet.header.packetId}>
              <td>
                <a href={`/console/packets/${seg(packet.header.packetId)}`}>
                  <code>{packet.header.packetId}</code>
                </a>
              </td>
              <td>{formatTime(packet.header.createdAt)}</td>
              <td>
                {packet.state}
                {packet.toolRouting?.executionStatus && packet.toolRouting.executionStatus !== "PENDING" ? ` · ${packet.toolRouting.executionStatus}` : ""}
              </td>
              <td>{packet.toolRouting?.selectedTool?.toolName ?? "—"}</td>
              <td class="request-cell">{packet.content?.originalPrompt}</td>
              <td>{packet.header.sessionId || "—"}</td>
            </tr>
          ))}
        </Table>
      )}
      {more && (
        <button type="button" onClick={loadOlder}>
          Older packets
        </button>
      )}
    </>
  );
}
