import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** What an async load has given so far. */
export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  /** Loads again (after a change the page made, or a reconnect). */
  reload: () => void;
}

/** Runs `load` when `deps` change and on reload; a late answer of an older run is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const run = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => run === latest.current && setState({ data, loading: false }),
      (error: unknown) => run === latest.current && setState((previous) => ({ data: previous.data, error: asError(error), loading: false })),
    );
    // `load` is a new closure on each render; `deps` say when it means something new.
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The current time, updated every `everyMs` (the countdowns). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** Anything thrown, as an Error. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
