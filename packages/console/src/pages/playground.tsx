import { useState } from "preact/hooks";
import { api, ApiError, seg } from "../api.js";
import { formatScore } from "../format.js";
import { asError } from "../hooks.js";
import type { Packet, RouteResponse, Turn } from "../types.js";
import { ErrorAlert, Fact, JsonBlock, PageTitle, Section } from "../ui.js";

/** History lines ("user: …", "assistant: …") as turns; a line without a known role is a user's. */
export function parseHistory(text: string): Turn[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const match = /^(user|assistant|system|tool)\s*:\s*(.*)$/i.exec(line);
      return match ? { role: match[1]!.toUpperCase(), content: match[2]! } : { role: "USER", content: line };
    });
}

/** `/console/playground`: what routing makes of a message, and what the pipeline would do with it, running nothing. */
export function PlaygroundPage() {
  const [message, setMessage] = useState("");
  const [history, setHistory] = useState("");
  const [routed, setRouted] = useState<RouteResponse>();
  const [preview, setPreview] = useState<{ packet?: Packet; error?: Error; pending: boolean }>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);

  const route = (event: Event) => {
    event.preventDefault();
    const request = { message, history: parseHistory(history) };
    setBusy(true);
    setError(undefined);
    api<RouteResponse>("/v1/route", { method: "POST", body: request }).then(
      (answer) => {
        setBusy(false);
        setRouted(answer);
      },
      (failure: unknown) => {
        setBusy(false);
        setRouted(undefined);
        setError(asError(failure));
      },
    );
    // A preview packet goes through every stage as a dry run: nothing is called, held or learned.
    setPreview({ pending: true });
    api<Packet>("/v1/packets", { method: "POST", body: { ...request, dryRun: true, wait: true } }).then(
      (packet) => setPreview({ packet, pending: false }),
      (failure: unknown) => setPreview({ error: failure instanceof ApiError ? failure : asError(failure), pending: false }),
    );
  };

  return (
    <>
      <PageTitle>Route playground</PageTitle>
      <p>Routes a message as a request would be routed, and previews the pipeline as a dry run. Nothing is called.</p>
      <form class="stack" onSubmit={route}>
        <label for="playground-message">Message</label>
        <textarea id="playground-message" rows={3} required value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
        <label for="playground-history">History</label>
        <p id="playground-history-help" class="muted">
          Optional: one turn per line, "user: …" or "assistant: …", oldest first.
        </p>
        <textarea
          id="playground-history"
          rows={3}
          aria-describedby="playground-history-help"
          value={history}
          onInput={(event) => setHistory(event.currentTarget.value)}
        />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            Route
          </button>
        </div>
      </form>
      <ErrorAlert error={error} />
      <p class="visually-hidden" aria-live="polite">
        {busy ? "Routing…" : routed ? `${routed.candidates?.length ?? 0} candidates.` : ""}
      </p>
      {routed && <RouteAnswer routed={routed} />}
      {preview && <Preview {...preview} />}
    </>
  );
}

function RouteAnswer({ routed }: { routed: RouteResponse }) {
  const candidates = routed.candidates ?? [];
  return (
    <>
      <Section title="Tool need">
        <p>
          <strong>{routed.need?.needed === false ? "No tool needed" : "A tool is needed"}</strong>
          {routed.need?.reason ? `: ${routed.need.reason}` : ""}
        </p>
        {(routed.warnings ?? []).map((warning, i) => (
          <p key={i} class="warning">
            {warning}
          </p>
        ))}
      </Section>
      <Section title="Candidates">
        {candidates.length === 0 ? (
          <p>No candidates.</p>
        ) : (
          <ol class="candidates">
            {candidates.map((candidate, i) => (
              <li key={i} class="card">
                <div class="card-head">
                  <strong>{candidate.tool?.name}</strong>
                  <span class="badge">score {formatScore(candidate.score)}</span>
                  <span class="badge">{candidate.source ?? "SEMANTIC"}</span>
                  {candidate.tool?.sideEffect && <span class={`badge ${candidate.tool.sideEffect === "WRITE" ? "badge-write" : ""}`}>{candidate.tool.sideEffect}</span>}
                </div>
                <dl class="facts">
                  <Fact term="Matched words">{(candidate.matchedWords ?? []).join(", ")}</Fact>
                  <Fact term="Example">{candidate.example}</Fact>
                </dl>
              </li>
            ))}
          </ol>
        )}
      </Section>
    </>
  );
}

/** What the dry-run packet says the pipeline would have done. */
function Preview({ packet, error, pending }: { packet?: Packet; error?: Error; pending: boolean }) {
  const routing = packet?.toolRouting ?? {};
  return (
    <Section title="What the pipeline would do">
      <div aria-live="polite">
        {pending && <p>Previewing the pipeline…</p>}
        <ErrorAlert error={error} />
        {packet && (
          <>
            <p>{packet.stateReason}</p>
            <dl class="facts">
              <Fact term="Tool">{routing.selectedTool?.toolName}</Fact>
              {/* The reason usually quotes the review; say it only when it adds something. */}
              <Fact term="Review">{packet.stateReason?.includes(routing.reviewReasoning ?? "") ? undefined : routing.reviewReasoning}</Fact>
            </dl>
            {routing.selectedTool?.params && <JsonBlock value={routing.selectedTool.params} />}
            <p>
              <a href={`/console/packets/${seg(packet.header.packetId)}`}>The preview packet</a>
            </p>
          </>
        )}
      </div>
    </Section>
  );
}
