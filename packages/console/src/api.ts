// The console's one way to the gateway: same-origin fetches carrying the session cookie
// and the header the gateway asks of cookie-authenticated writes (its CSRF guard).

/** A refusal from the gateway, with the message its error body gives. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => {};

/** Sets what happens when the gateway answers 401 (the session cookie expired or was revoked). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/** The message of an API error body: `{message}` or `{error: {message}}`, else the status line. */
async function errorMessage(response: Response): Promise<string> {
  const fallback = `${response.status} ${response.statusText}`.trim();
  try {
    const body = (await response.json()) as { message?: unknown; error?: unknown };
    if (typeof body.message === "string" && body.message) return body.message;
    if (body.error && typeof body.error === "object" && "message" in body.error) return String(body.error.message);
    if (typeof body.error === "string") return body.error;
  } catch {
    // not JSON: the status line says enough
  }
  return fallback;
}

/** Calls the gateway and answers its JSON (undefined for 204), or throws ApiError. */
export async function api<T>(path: string, init: { method?: string; body?: unknown; quiet401?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { "x-switchyard-console": "1", accept: "application/json" };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!response.ok) {
    if (response.status === 401 && !init.quiet401) onUnauthorized();
    throw new ApiError(response.status, await errorMessage(response));
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** `path` with the query string of the set values (arrays repeat their key). */
export function withQuery(path: string, query: Record<string, string | number | string[] | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** The path segment for a name or id, escaped. */
export const seg = (value: string): string => encodeURIComponent(value);
