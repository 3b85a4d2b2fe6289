import { useState } from "preact/hooks";
import { api, seg } from "../api.js";
import { formatDuration, formatScore, formatTime, prettyJson } from "../format.js";
import { asError, useLoad } from "../hooks.js";
import { usePacketFeed } from "../packet-feed.js";
import { useSession } from "../session.js";
import type { Packet, RoutingCandidate, SelectedTool, ToolDefinition } from "../types.js";
import { ErrorAlert, Fact, JsonBlock, PageTitle, Section, Table } from "../ui.js";
import { Waterfall } from "../waterfall.js";

/** The trace id of a W3C traceparent ("00-<trace id>-<span id>-<flags>"). */
function traceId(traceparent: string | undefined): string | undefined {
  return /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/.exec(traceparent ?? "")?.[1];
}

/** A tool's output as a person reads it: its text content (a string or MCP text parts), anything else as JSON. */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  const content = (output as { content?: unknown } | null)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.length && content.every((part) => typeof (part as { text?: unknown })?.text === "string")) {
    return content.map((part) => (part as { text: string }).text).join("\n");
  }
  return prettyJson(output);
}

/** `/console/packets/:id`: one packet's whole story, kept live while it moves. */
export function PacketPage({ params }: { params?: { id?: string } }) {
  const id = params?.id ?? "";
  const loaded = useLoad(() => api<Packet>(`/v1/packets/${seg(id)}`), [id]);
  const [live, setLive] = useState<Packet>();
  usePacketFeed((packet) => packet.header.packetId === id && setLive(packet), loaded.reload);
  const packet = live && live.header.packetId === id && (live.header.updatedAt ?? "") >= (loaded.data?.header.updatedAt ?? "") ? live : loaded.data;

  return (
    <>
      <PageTitle>Packet {id}</PageTitle>
      <ErrorAlert error={loaded.error} />
      {!packet && !loaded.error && <p>Loading…</p>}
      {packet && <PacketDetails packet={packet} />}
    </>
  );
}

function PacketDetails({ packet }: { packet: Packet }) {
  const { jaegerUiUrl } = useSession();
  const routing = packet.toolRouting ?? {};
  const trace = traceId(packet.header.traceparent);
  const results = (packet.content?.dataFields ?? []).filter((field) => field.key === "tool_result");
  return (
    <>
      <p class="request">{packet.content?.originalPrompt}</p>
      <dl class="facts">
        <Fact term="State">{packet.state}</Fact>
        <Fact term="Why">{packet.stateReason}</Fact>
        <Fact term="Execution">{routing.executionStatus}</Fact>
        <Fact term="Tenant">{packet.header.tenant}</Fact>
        <Fact term="Session">{packet.header.sessionId}</Fact>
        <Fact term="Created">{formatTime(packet.header.createdAt)}</Fact>
        <Fact term="Updated">{formatTime(packet.header.updatedAt)}</Fact>
        {packet.header.preview && <Fact term="Preview">a dry run: nothing was called</Fact>}
        {jaegerUiUrl && trace && (
          <Fact term="Trace">
            <a href={`${jaegerUiUrl.replace(/\/$/, "")}/trace/${trace}`} target="_blank" rel="noopener noreferrer">
              Open trace {trace} in Jaeger
            </a>
          </Fact>
        )}
      </dl>
      {packet.state === "AWAITING_APPROVAL" && (
        <p>
          This call waits for a decision: <a href={`/console/approvals/${seg(packet.header.packetId)}`}>approve or deny it</a>.
        </p>
      )}

      <Section title="Hops">
        <Waterfall hops={packet.hops ?? []} />
      </Section>

      <Section title="Candidates">
        <Candidates candidates={routing.candidates ?? []} />
      </Section>

      <Section title="Selection">
        {routing.selectedTool?.toolName ? <Selected tool={routing.selectedTool} /> : <p>No tool was selected.</p>}
        {(routing.alternativeTools ?? []).length > 0 && (
          <>
            <h3>Alternatives</h3>
            <ul>
              {routing.alternativeTools!.map((alternative, i) => (
                <li key={i}>
                  <strong>{alternative.toolName}</strong> ({formatScore(alternative.selectionConfidence)}) {alternative.selectionReasoning}
                </li>
              ))}
            </ul>
          </>
        )}
      </Section>

      <Section title="Review">
        <dl class="facts">
          <Fact term="Confidence">{routing.reviewConfidence !== undefined ? formatScore(routing.reviewConfidence) : undefined}</Fact>
          <Fact term="Reasoning">{routing.reviewReasoning}</Fact>
          <Fact term="Needs a tool">{routing.toolNeed?.reason ?? (routing.needsTool === undefined ? undefined : String(routing.needsTool))}</Fact>
          <Fact term="Call hash">{routing.approval?.callHash && <code>{routing.approval.callHash}</code>}</Fact>
          <Fact term="Approval expires">{routing.approval?.expiresAt && formatTime(routing.approval.expiresAt)}</Fact>
          <Fact term="Approved at">{routing.approval?.grantedAt && formatTime(routing.approval.grantedAt)}</Fact>
        </dl>
        {(packet.fallbacks ?? []).length > 0 && (
          <>
            <h3>Fallbacks</h3>
            <ul>
              {packet.fallbacks!.map((fallback, i) => (
                <li key={i}>
                  {fallback.stage}: {fallback.detail ?? `${fallback.dependency} (${fallback.cause})`}
                </li>
              ))}
            </ul>
          </>
        )}
      </Section>

      <Section title="Reflection log">
        {(packet.reasoning?.reflectionLog ?? []).length === 0 ? (
          <p>Nothing logged.</p>
        ) : (
          <ol class="log">
            {packet.reasoning!.reflectionLog!.map((entry, i) => (
              <li key={i}>
                <strong>{entry.step}</strong>
                {entry.confidence ? <span class="muted"> confidence {formatScore(entry.confidence)}</span> : null}
                {entry.durationMs ? <span class="muted"> · {formatDuration(entry.durationMs)}</span> : null}
                <div>{entry.summary}</div>
              </li>
            ))}
          </ol>
        )}
      </Section>

      <Section title="Result">
        {results.length === 0 && <p>No tool ran{routing.executionResult?.error ? `: ${routing.executionResult.error}` : "."}</p>}
        {results.map((field, i) => {
          const result = (field.value ?? {}) as { tool?: string; success?: boolean; error?: string; output?: unknown; dryRun?: boolean };
          return (
            <div key={i} class="result">
              <p>
                <strong>{result.tool}</strong> {result.dryRun ? "(dry run) " : ""}
                {result.success === false ? `failed${result.error ? `: ${result.error}` : ""}` : "succeeded"}
              </p>
              <pre class="code">{outputText(result.output ?? result.error ?? "")}</pre>
            </div>
          );
        })}
      </Section>

      <Feedback packet={packet} />
    </>
  );
}

function Candidates({ candidates }: { candidates: RoutingCandidate[] }) {
  if (!candidates.length) return <p>No candidates.</p>;
  return (
    <Table headers={["Tool", "Score", "Source", "Matched words", "Example"]}>
      {candidates.map((candidate, i) => (
        <tr key={i}>
          <td>{candidate.tool?.name}</td>
          <td>{formatScore(candidate.score)}</td>
          <td>{candidate.source ?? "SEMANTIC"}</td>
          <td>{(candidate.matchedWords ?? []).join(", ") || "—"}</td>
          <td>{candidate.example || "—"}</td>
        </tr>
      ))}
    </Table>
  );
}

function Selected({ tool }: { tool: SelectedTool }) {
  return (
    <>
      <dl class="facts">
        <Fact term="Tool">{tool.toolName}</Fact>
        <Fact term="Confidence">{tool.selectionConfidence !== undefined ? formatScore(tool.selectionConfidence) : undefined}</Fact>
        <Fact term="Why">{tool.selectionReasoning}</Fact>
      </dl>
      <h3>Arguments</h3>
      <JsonBlock value={tool.params ?? {}} />
    </>
  );
}

/** "Was the tool right?" for a finished packet; a wrong one can name the right tool. */
function Feedback({ packet }: { packet: Packet }) {
  const [correct, setCorrect] = useState<boolean>();
  const [tool, setTool] = useState("");
  const [sent, setSent] = useState<string>();
  const [error, setError] = useState<Error>();
  const catalog = useLoad(() => api<{ tools?: ToolDefinition[] }>("/v1/tools"), []);
  const id = packet.header.packetId;

  const send = (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const body = correct === false && tool ? { correct, tool } : { correct };
    api<{ removedFrom?: string; addedTo?: string }>(`/v1/packets/${seg(id)}/feedback`, { method: "POST", body }).then(
      (answer) =>
        setSent(
          correct
            ? "Thanks: the tool was right."
            : `Thanks: the request was taken back${answer?.removedFrom ? ` from ${answer.removedFrom}` : ""}${answer?.addedTo ? ` and taught to ${answer.addedTo}` : ""}.`,
        ),
      (failure: unknown) => setError(asError(failure)),
    );
  };

  return (
    <Section title="Feedback">
      <form onSubmit={send} class="stack">
        <fieldset>
          <legend>Was the tool right?</legend>
          <label class="inline">
            <input type="radio" name="correct" checked={correct === true} onChange={() => setCorrect(true)} /> Yes
          </label>
          <label class="inline">
            <input type="radio" name="correct" checked={correct === false} onChange={() => setCorrect(false)} /> No
          </label>
        </fieldset>
        <label for="right-tool">The right tool</label>
        <select id="right-tool" value={tool} disabled={correct !== false} onChange={(event) => setTool(event.currentTarget.value)}>
          <option value="">(none: only take it back)</option>
          {(catalog.data?.tools ?? []).map((candidate) => (
            <option key={candidate.name} value={candidate.name}>
              {candidate.name}
            </option>
          ))}
        </select>
        <div>
          <button type="submit" disabled={correct === undefined}>
            Send feedback
          </button>
        </div>
        <ErrorAlert error={error} />
        <p role="status">{sent}</p>
      </form>
    </Section>
  );
}
