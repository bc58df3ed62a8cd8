/**
 * @module Writes log lines to a stream that may not keep up (stdout into a pipe nobody
 * reads), holding at most a bounded amount in memory: past the bound, lines are dropped
 * and counted, and the count is reported once the stream drains.
 */

/** The default bound on what a log stream may hold unwritten: 1 MiB. */
export const DEFAULT_LOG_BUFFER_BYTES = 1024 * 1024;

/** The part of a Node writable stream the writer uses (process.stdout, process.stderr). */
export interface LineStream {
  write(chunk: string): boolean;
  /** What the stream holds, written but not yet taken by the other end. */
  readonly writableLength: number;
  /** True after a write returned false, until 'drain'. */
  readonly writableNeedDrain: boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** How the writer bounds and reports. */
export interface LineWriterOptions {
  /** The most the stream may hold unwritten before lines are dropped, in bytes. */
  maxBufferedBytes: number;
  /**
   * Called once the stream takes lines again after some were dropped, with how many were
   * dropped since the last call; it may write its report through the writer.
   */
  onRecovered(droppedLines: number): void;
}

/** Writes lines, dropping (and counting) those the stream has no room for. */
export interface LineWriter {
  /** Writes a line (without its newline), or drops it when the stream holds too much already. */
  write(line: string): void;
  /** Lines dropped since the writer was made: for metrics. */
  droppedLines(): number;
}

/**
 * Creates a writer over `stream`. A line is dropped when the stream already holds
 * `maxBufferedBytes` or more unwritten, so memory held stays under that bound plus one line,
 * however long the reader stalls. Dropping, not waiting: a server must never slow its
 * answers, nor grow without bound, because its log reader is slow.
 */
export const createLineWriter = (stream: LineStream, { maxBufferedBytes, onRecovered }: LineWriterOptions): LineWriter => {
  let dropped = 0;
  let unreported = 0;
  let drainAwaited = false;

  /** Tells of the lines dropped so far, if any: the report goes where the gap is, before the next line. */
  const report = () => {
    if (unreported === 0) return;
    const lines = unreported;
    unreported = 0;
    onRecovered(lines);
  };
  const drained = () => {
    drainAwaited = false;
    report();
  };

  const write = (line: string) => {
    if (stream.writableLength >= maxBufferedBytes) {
      dropped += 1;
      unreported += 1;
      // A stream that said "no more" tells when it has emptied; one that did not (a bound
      // below its high-water mark) is reported at the next line it takes.
      if (!drainAwaited && stream.writableNeedDrain) {
        drainAwaited = true;
        stream.once('drain', drained);
      }
      return;
    }
    report();
    stream.write(`${line}\n`);
  };

  return { write, droppedLines: () => dropped };
};
