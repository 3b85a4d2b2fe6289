/** A piece of a request found by the scanner: a quote, a path, a glob, an extension or a number. */
export interface Span {
  /** The text, without surrounding quotes or punctuation. */
  value: string;
  /** Offsets into the request text (for quotes: including the quote marks). */
  start: number;
  end: number;
  /** The nearest meaningful word before the span, lower-cased, skipping articles and "file"/"folder" (see wordBefore). */
  before: string;
}
