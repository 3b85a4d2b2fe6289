import { unwatchFile, watchFile } from "node:fs";

/**
 * How often the file is looked at. Polling stat(), which follows symlinks, sees every way
 * a config changes: written in place, replaced by rename (editors), a symlink pointed
 * elsewhere (a Kubernetes ConfigMap update), and on mounts without inotify events.
 */
const POLL_INTERVAL_MS = 1000;
/** Quiet time after a change before the file is read, so that a file being written is not read half-way. */
const SETTLE_MS = 300;

export interface ConfigWatch {
  /** Stops watching; resolves once a call of onChange under way is done. */
  close(): Promise<void>;
}

/**
 * Calls `onChange` (which must not reject) once the file at `path` has changed and
 * settled, one call at a time: a change during a call brings one more call after it.
 */
export function watchConfigFile(path: string, onChange: () => Promise<void>): ConfigWatch {
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(onChange);
    }, SETTLE_MS);
  };
  // Not persistent: the watch alone does not keep the process alive.
  watchFile(path, { interval: POLL_INTERVAL_MS, persistent: false }, changed);
  return {
    async close() {
      unwatchFile(path, changed);
      clearTimeout(timer);
      await running;
    },
  };
}
