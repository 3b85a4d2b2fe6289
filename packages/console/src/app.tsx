import { useCallback, useEffect, useState } from "preact/hooks";
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { api, ApiError, whenUnauthorized } from "./api.js";
import { asError } from "./hooks.js";
import { SessionContext } from "./session.js";
import type { Session } from "./types.js";
import { ErrorAlert } from "./ui.js";
import { LoginPage } from "./pages/login.js";
import { ApprovalsPage } from "./pages/approvals.js";
import { PacketsPage } from "./pages/packets.js";
import { PacketPage } from "./pages/packet.js";
import { CatalogPage } from "./pages/catalog.js";
import { PlaygroundPage } from "./pages/playground.js";
import { FleetPage } from "./pages/fleet.js";
import { NotFoundPage } from "./pages/not-found.js";

const LINKS = [
  { href: "/console", label: "Approvals", matches: (path: string) => path === "/console" || path.startsWith("/console/approvals") },
  { href: "/console/packets", label: "Packets", matches: (path: string) => path.startsWith("/console/packets") },
  { href: "/console/catalog", label: "Catalog", matches: (path: string) => path.startsWith("/console/catalog") },
  { href: "/console/playground", label: "Playground", matches: (path: string) => path.startsWith("/console/playground") },
  { href: "/console/fleet", label: "Fleet", matches: (path: string) => path.startsWith("/console/fleet") },
];

/** The console: its session, then the navigation and the page the address names. */
export function App() {
  return (
    <LocationProvider scope="/console">
      <Shell />
    </LocationProvider>
  );
}

/** Asks the gateway who is signed in; undefined while asking, null when nobody is. */
function useSessionState(): { session: Session | null | undefined; error: Error | undefined; refresh: () => void; signedOut: () => void } {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<Error>();
  const refresh = useCallback(() => {
    api<Session>("/console/session", { quiet401: true }).then(
      (answer) => {
        setError(undefined);
        setSession(answer);
      },
      (failure: unknown) => (failure instanceof ApiError && failure.status === 401 ? setSession(null) : setError(asError(failure))),
    );
  }, []);
  const signedOut = useCallback(() => setSession(null), []);
  useEffect(() => {
    whenUnauthorized(signedOut);
    refresh();
  }, [refresh, signedOut]);
  return { session, error, refresh, signedOut };
}

function Shell() {
  const { path, route } = useLocation();
  const { session, error, refresh, signedOut } = useSessionState();

  useEffect(() => {
    // The sign-in page is only for someone signed out; a signed-in reader goes to the inbox.
    if (session && path.startsWith("/console/login")) route("/console", true);
  }, [session, path, route]);

  const signOut = () => {
    api("/console/session", { method: "DELETE" }).then(
      () => {
        signedOut();
        route("/console/login");
      },
      () => signedOut(),
    );
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/console">
          Switchyard
        </a>
        {session && (
          <nav aria-label="Console">
            <ul>
              {LINKS.map((link) => (
                <li key={link.href}>
                  <a href={link.href} aria-current={link.matches(path) ? "page" : undefined}>
                    {link.label}
                  </a>
                </li>
              ))}
            </ul>
            {session.keysRequired && (
              <button type="button" class="link-button" onClick={signOut}>
                Sign out
              </button>
            )}
          </nav>
        )}
        {session && (
          <p class="who">
            tenant <strong>{session.tenant}</strong>
            {session.admin ? " · admin" : ""}
          </p>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorAlert error={error} />
        {session === null && <LoginPage onSignedIn={refresh} />}
        {session && (
          <SessionContext.Provider value={session}>
            <Router>
              <Route path="/console" component={ApprovalsPage} />
              <Route path="/console/approvals/:packetId" component={ApprovalsPage} />
              <Route path="/console/packets" component={PacketsPage} />
              <Route path="/console/packets/:id" component={PacketPage} />
              <Route path="/console/catalog" component={CatalogPage} />
              <Route path="/console/playground" component={PlaygroundPage} />
              <Route path="/console/fleet" component={FleetPage} />
              <Route path="/console/login" component={ApprovalsPage} />
              <Route default component={NotFoundPage} />
            </Router>
          </SessionContext.Provider>
        )}
      </main>
    </>
  );
}
