import { useState } from "preact/hooks";
import { api, ApiError } from "../api.js";
import { asError } from "../hooks.js";
import { ErrorAlert, PageTitle } from "../ui.js";

/**
 * The sign-in form: the key goes once, in a POST body, to the gateway, which answers with an
 * HttpOnly cookie; the page never keeps it.
 */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);

  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    api("/console/session", { method: "POST", body: { apiKey }, quiet401: true }).then(
      () => {
        setApiKey("");
        onSignedIn();
      },
      (failure: unknown) => {
        setBusy(false);
        setError(failure instanceof ApiError && failure.status === 401 ? new Error("That API key was not accepted.") : asError(failure));
      },
    );
  };

  return (
    <div class="login">
      <PageTitle>Sign in</PageTitle>
      <p>Sign in with an API key of this gateway. It is kept in a cookie no script can read.</p>
      <form onSubmit={submit} class="stack">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          required
          value={apiKey}
          onInput={(event) => setApiKey(event.currentTarget.value)}
        />
        <ErrorAlert error={error} />
        <div>
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </div>
      </form>
    </div>
  );
}
