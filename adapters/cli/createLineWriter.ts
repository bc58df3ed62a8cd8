/**
 * @module Writes log lines to a stream that may not keep up (stdout into a pipe nobody
 * reads), holding at most a bounded amount in memory: past the bound, lines are dropped
 * and counted, and the count is reported once the stream drains.
 */

/** The default bound on what a log stream may hold unwritten: 1 MiB. */
export const DEFAULT_LOG_BUFFER_BYTES = 1024 * 1024;

/**
 * The lines of one turn of the event loop are written together, at its end: one write, so
 * one system call, for all the access lines of the requests answered in that turn, where a
 * write per line cost a loaded server much of its throughput. A batch this long (or
 * half the bound, when that is less) is written at once, so that a stalled stream is soon
 * told, and tells when it drains.
 */
const BATCH_CHARACTERS = 16 * 1024;

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
  /** The most the writer and the stream may hold unwritten before lines are dropped, in bytes. */
  maxBufferedBytes: number;
  /**
   * Called once the stream takes lines again after some were dropped, with how many were
   * dropped since the last call; it may write its report through the writer.
   */
  onRecovered(droppedLines: number): void;
}

/** Writes lines, dropping (and counting) those the stream has no room for. */
export interface LineWriter {
  /**
   * Takes a line (without its newline), written with the others of this turn once the turn
   * ends; or drops it when the stream holds too much already.
   */
  write(line: string): void;
  /** Writes the lines taken and not yet written now: before the process exits. */
  flush(): void;
  /** Lines dropped since the writer was made: for metrics. */
  droppedLines(): number;
}

/**
 * Creates a writer over `stream`. A line is dropped when the writer's batch and the stream
 * already hold `maxBufferedBytes` or more unwritten, so memory held stays under that bound
 * plus one line, however long the reader stalls. Dropping, not waiting: a server must never
 * slow its answers, nor grow without bound, because its log reader is slow.
 */
export const createLineWriter = (stream: LineStream, { maxBufferedBytes, onRecovered }: LineWriterOptions): LineWriter => {
  const batchLimit = Math.min(BATCH_CHARACTERS, maxBufferedBytes / 2);
  let batch = '';
  let flushScheduled = false;
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

  const flush = () => {
    flushScheduled = false;
    if (batch === '') return;
    const text = batch;
    batch = '';
    stream.write(text);
  };

  const write = (line: string) => {
    // The batch in characters, not bytes: a bound, not an account, and cheaper to keep.
    if (stream.writableLength + batch.length >= maxBufferedBytes) {
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
    batch += `${line}\n`;
    if (batch.length >= batchLimit) flush();
    else if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  return { write, flush, droppedLines: () => dropped };
};
