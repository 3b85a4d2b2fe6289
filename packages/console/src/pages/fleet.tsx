import { useEffect } from "preact/hooks";
import { api } from "../api.js";
import { useLoad } from "../hooks.js";
import type { FleetStatus } from "../types.js";
import { ErrorAlert, PageTitle, Section, Table } from "../ui.js";

const REFRESH_MS = 5000;

/** `/console/fleet`: each service's readiness and the tenant's packets in flight, waiting and falling back. */
export function FleetPage() {
  const fleet = useLoad(() => api<FleetStatus>("/v1/fleet"), []);
  useEffect(() => {
    const timer = setInterval(fleet.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [fleet.reload]);
  const status = fleet.data;
  return (
    <>
      <PageTitle>Fleet</PageTitle>
      <ErrorAlert error={fleet.error} />
      {!status && !fleet.error && <p>Loading…</p>}
      {status && (
        <>
          <p class={`summary status-${status.status ?? "unknown"}`}>
            The fleet is <strong>{status.status ?? "unknown"}</strong>. {status.packetsInFlight ?? 0} packets in flight, {status.approvalsWaiting ?? 0} waiting
            for a decision (<a href="/console">approvals</a>).
          </p>
          <Section title="Services">
            <Table headers={["Service", "Ready", "Replicas", "Dependencies down"]}>
              {(status.services ?? []).map((service) => (
                <tr key={service.name}>
                  <td>{service.name}</td>
                  <td>{service.ready ? "ready" : "not ready"}</td>
                  <td>{service.instances ?? 0}</td>
                  <td>{(service.down ?? []).join(", ") || "none"}</td>
                </tr>
              ))}
            </Table>
          </Section>
          <Section title="Fallbacks">
            {(status.fallbacks ?? []).length === 0 ? (
              <p>No fallback among the recent packets.</p>
            ) : (
              <ul>
                {status.fallbacks!.map((fallback, i) => (
                  <li key={i}>
                    {fallback.stage}: {fallback.dependency} ({fallback.cause}) × {fallback.count ?? 0}
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </>
      )}
    </>
  );
}
