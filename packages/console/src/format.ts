// How the pages write times, durations and JSON for a person.

/** A timestamp as the reader's local date and time, or "—" when absent. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Milliseconds as "850 ms", "2.4 s" or "3 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** What is left until `expiresAt` at `now`: "4:05 left", "expired", or "—" without a deadline. */
export function timeLeft(expiresAt: string | undefined, now: number): string {
  if (!expiresAt) return "—";
  const left = Date.parse(expiresAt) - now;
  if (Number.isNaN(left)) return "—";
  if (left <= 0) return "expired";
  const seconds = Math.floor(left / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours ? `${hours} h ${String(minutes).padStart(2, "0")} min left` : `${minutes}:${rest} left`;
}

/** A value as indented JSON, for a <pre>. */
export function prettyJson(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

/** A score or probability with two decimals. */
export const formatScore = (value: number | undefined): string => (value ?? 0).toFixed(2);
