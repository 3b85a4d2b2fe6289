import { useState } from "preact/hooks";
import { api, seg } from "../api.js";
import { DefinitionDiff } from "../definition-diff.js";
import { formatTime } from "../format.js";
import { asError, useLoad } from "../hooks.js";
import { useSession } from "../session.js";
import type { RegisteredServer, ToolDefinition, ToolExample } from "../types.js";
import { ErrorAlert, Fact, PageTitle, Section } from "../ui.js";

/** Tools grouped by server, then pool, each group sorted by name. */
function groupTools(tools: ToolDefinition[]): [string, [string, ToolDefinition[]][]][] {
  const servers = new Map<string, Map<string, ToolDefinition[]>>();
  for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
    const server = tool.server || tool.name.split(".")[0] || "(no server)";
    const pools = servers.get(server) ?? servers.set(server, new Map()).get(server)!;
    const pool = tool.pool || server;
    (pools.get(pool) ?? pools.set(pool, []).get(pool)!).push(tool);
  }
  return [...servers].sort(([a], [b]) => a.localeCompare(b)).map(([server, pools]) => [server, [...pools].sort(([a], [b]) => a.localeCompare(b))]);
}

/** `/console/catalog`: the tools the tenant sees, the quarantined ones to review, and (admins) the registered servers. */
export function CatalogPage() {
  const { admin } = useSession();
  const catalog = useLoad(() => api<{ tools?: ToolDefinition[] }>("/v1/tools"), []);
  const [approved, setApproved] = useState<Set<string>>(new Set());
  const tools = catalog.data?.tools ?? [];
  const quarantined = tools.filter((tool) => tool.quarantined && !approved.has(tool.name));

  return (
    <>
      <PageTitle>Catalog</PageTitle>
      <ErrorAlert error={catalog.error} />
      {catalog.loading && !catalog.data && <p>Loading…</p>}
      <Section title="Quarantined" class="quarantine">
        {quarantined.length === 0 ? (
          <p>No tool is quarantined.</p>
        ) : (
          quarantined.map((tool) => (
            <QuarantinedTool
              key={tool.name}
              tool={tool}
              admin={admin}
              onApproved={() => {
                setApproved((names) => new Set(names).add(tool.name));
                catalog.reload();
              }}
            />
          ))
        )}
      </Section>
      <Section title="Tools">
        {catalog.data && tools.length === 0 && <p>The catalog is empty.</p>}
        {groupTools(tools).map(([server, pools]) => (
          <div key={server} class="server-group">
            <h3>{server}</h3>
            {pools.map(([pool, members]) => (
              <div key={pool}>
                {(pools.length > 1 || pool !== server) && <p class="pool">pool {pool}</p>}
                {members.map((tool) => (
                  <ToolEntry key={tool.name} tool={tool} />
                ))}
              </div>
            ))}
          </div>
        ))}
      </Section>
      {admin && <Servers onChanged={catalog.reload} />}
    </>
  );
}

/** A quarantined tool: why, its pinned and served definitions, and Approve tool (admins). */
function QuarantinedTool({ tool, admin, onApproved }: { tool: ToolDefinition; admin: boolean; onApproved: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const approve = () => {
    setBusy(true);
    setError(undefined);
    api(`/v1/tools/${seg(tool.name)}/approve`, { method: "POST", body: {} }).then(onApproved, (failure: unknown) => {
      setBusy(false);
      setError(asError(failure));
    });
  };
  return (
    <article class="card">
      <header class="card-head">
        <h3>{tool.name}</h3>
        <span class={`badge ${tool.sideEffect === "WRITE" ? "badge-write" : ""}`}>{tool.sideEffect ?? "READ"}</span>
      </header>
      {(tool.flags ?? []).length > 0 && <p>Flagged: {tool.flags!.join(", ")}</p>}
      <DefinitionDiff tool={tool} />
      {admin ? (
        <div class="actions">
          <button type="button" class="primary" disabled={busy} onClick={approve}>
            Approve tool
          </button>
        </div>
      ) : (
        <p class="muted">An admin's key approves it.</p>
      )}
      <ErrorAlert error={error} />
    </article>
  );
}

/** One tool of the catalog, with its examples behind a disclosure. */
function ToolEntry({ tool }: { tool: ToolDefinition }) {
  return (
    <article class="tool">
      <header class="card-head">
        <h4>{tool.name}</h4>
        <span class={`badge ${tool.sideEffect === "WRITE" ? "badge-write" : ""}`}>{tool.sideEffect ?? "READ"}</span>
        {tool.core && <span class="badge">core</span>}
        {tool.quarantined && <span class="badge badge-write">quarantined</span>}
      </header>
      <p>{tool.description}</p>
      <dl class="facts">
        <Fact term="Domains">{(tool.domains ?? []).join(", ")}</Fact>
        <Fact term="Tenants">{(tool.tenants ?? []).length ? tool.tenants!.join(", ") : "every tenant"}</Fact>
      </dl>
      <Examples tool={tool.name} />
    </article>
  );
}

/** A tool's stored examples (hand-added, learned, from feedback), loaded when opened, each deletable. */
function Examples({ tool }: { tool: string }) {
  const [open, setOpen] = useState(false);
  const [examples, setExamples] = useState<ToolExample[]>();
  const [error, setError] = useState<Error>();
  const [status, setStatus] = useState("");
  const load = () =>
    api<{ examples?: ToolExample[] }>(`/v1/tools/${seg(tool)}/examples`).then(
      (answer) => setExamples(answer.examples ?? []),
      (failure: unknown) => setError(asError(failure)),
    );
  const toggle = (event: Event) => {
    const nowOpen = (event.currentTarget as HTMLDetailsElement).open;
    setOpen(nowOpen);
    if (nowOpen) void load();
  };
  const remove = (example: ToolExample) => {
    setError(undefined);
    api(`/v1/tools/${seg(tool)}/examples/${seg(example.id)}`, { method: "DELETE" }).then(
      () => {
        setExamples((list) => list?.filter((item) => item.id !== example.id));
        setStatus(`Deleted the example "${example.text ?? ""}".`);
      },
      (failure: unknown) => setError(asError(failure)),
    );
  };
  return (
    <details onToggle={toggle}>
      <summary>Examples</summary>
      {open && !examples && !error && <p>Loading…</p>}
      {examples && examples.length === 0 && <p>No stored examples (only the catalog entry's own, which are not deletable).</p>}
      {examples && examples.length > 0 && (
        <ul class="examples">
          {examples.map((example) => (
            <li key={example.id}>
              <span class="example-text">{example.text}</span>{" "}
              <span class="muted">
                {(example.source ?? "").toLowerCase()}
                {example.shared ? ", shared" : ""}, {formatTime(example.at)}
              </span>{" "}
              <button type="button" class="small" onClick={() => remove(example)}>
                Delete<span class="visually-hidden"> the example "{example.text}"</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorAlert error={error} />
      <p role="status" class="visually-hidden">
        {status}
      </p>
    </details>
  );
}

const list = (value: FormDataEntryValue | null): string[] =>
  String(value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** Admins: the MCP servers registered at run time, a form to register one, and Remove. */
function Servers({ onChanged }: { onChanged: () => void }) {
  const servers = useLoad(() => api<{ servers?: RegisteredServer[] }>("/v1/servers"), []);
  const [error, setError] = useState<Error>();
  const [status, setStatus] = useState("");
  const changed = (message: string) => {
    setStatus(message);
    servers.reload();
    onChanged();
  };
  const register = (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const body = {
      name: String(form.get("name") ?? "").trim(),
      url: String(form.get("url") ?? "").trim(),
      pool: String(form.get("pool") ?? "").trim() || undefined,
      domains: list(form.get("domains")),
      tenants: list(form.get("tenants")),
      core: list(form.get("core")),
      trust: String(form.get("trust") ?? "FIRST_USE"),
    };
    setError(undefined);
    api<{ tools?: ToolDefinition[] }>("/v1/servers", { method: "POST", body }).then(
      (answer) => {
        formElement.reset();
        changed(`Registered ${body.name}: ${answer?.tools?.length ?? 0} tools listed so far.`);
      },
      (failure: unknown) => setError(asError(failure)),
    );
  };
  const remove = (name: string) => {
    setError(undefined);
    api(`/v1/servers/${seg(name)}`, { method: "DELETE" }).then(
      () => changed(`Removed ${name}; its tools are retired.`),
      (failure: unknown) => setError(asError(failure)),
    );
  };
  const registered = servers.data?.servers ?? [];
  return (
    <Section title="Servers">
      <ErrorAlert error={servers.error ?? error} />
      <p role="status">{status}</p>
      {servers.data && registered.length === 0 && <p>No server is registered at run time (the servers of switchyard.yaml are not listed here).</p>}
      {registered.length > 0 && (
        <ul class="servers">
          {registered.map((server) => (
            <li key={server.name}>
              <strong>{server.name}</strong> <code>{server.url}</code>
              <span class="muted">
                {" "}
                pool {server.pool || server.name}, trust {server.trust ?? "FIRST_USE"}
                {(server.domains ?? []).length ? `, domains ${server.domains!.join(", ")}` : ""}
                {(server.tenants ?? []).length ? `, tenants ${server.tenants!.join(", ")}` : ", every tenant"}
                {server.registeredBy ? `, by ${server.registeredBy}` : ""} {formatTime(server.registeredAt)}
              </span>{" "}
              <button type="button" class="small danger" onClick={() => remove(server.name)}>
                Remove<span class="visually-hidden"> server {server.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <h3>Register a server</h3>
      <form class="grid-form" onSubmit={register}>
        <label>
          Name
          <input name="name" required pattern="[A-Za-z0-9_\-]+" />
        </label>
        <label>
          URL (Streamable HTTP)
          <input name="url" type="url" required placeholder="https://mcp.example.com/mcp" />
        </label>
        <label>
          Pool
          <input name="pool" />
        </label>
        <label>
          Domains (comma-separated)
          <input name="domains" />
        </label>
        <label>
          Tenants (comma-separated; empty: every tenant)
          <input name="tenants" />
        </label>
        <label>
          Core tools (comma-separated)
          <input name="core" />
        </label>
        <label>
          Trust
          <select name="trust">
            <option value="FIRST_USE">first use: pin as first served</option>
            <option value="REVIEW">review: quarantine every tool until approved</option>
          </select>
        </label>
        <div>
          <button type="submit">Register</button>
        </div>
      </form>
    </Section>
  );
}
