import type { WriteStream } from "node:tty";

/** The part of a stream the progress display writes to; a TTY stream has `isTTY` and `columns`. */
export type ProgressStream = Pick<WriteStream, "write"> & { isTTY?: boolean; columns?: number };

const BAR_WIDTH = 30;
/** Redraws at most this often; a search takes about a millisecond, a redraw per case would dominate. */
const REDRAW_MS = 100;

/**
 * Progress of one dataset on stderr: a bar redrawn in place when the stream
 * is a terminal; otherwise (CI logs, pipes) nothing until the dataset is done,
 * then one line.
 */
export class Progress {
  private lastDraw = 0;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label: string,
  ) {}

  update(done: number, total: number): void {
    if (!this.stream.isTTY) return;
    const now = performance.now();
    if (done < total && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const filled = total > 0 ? Math.round((done / total) * BAR_WIDTH) : BAR_WIDTH;
    const bar = "█".repeat(filled) + "░".repeat(BAR_WIDTH - filled);
    this.stream.write(`\r${this.label} ${bar} ${done}/${total}`);
  }

  /** Ends the bar (or writes the one line) with a summary. */
  done(summary: string): void {
    if (this.stream.isTTY) this.stream.write("\r\x1b[2K"); // carriage return, then erase the line the bar was on
    this.stream.write(`${this.label}: ${summary}\n`);
  }
}
