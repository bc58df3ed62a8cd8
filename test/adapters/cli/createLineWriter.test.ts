import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCliLog } from '../../../adapters/cli/createCliLog.js';
import { createLineWriter } from '../../../adapters/cli/createLineWriter.js';

/**
 * A stream whose reader can stall: while stalled, every chunk waits; `drain()` lets them all
 * through, and waits for the turns in which the writer writes what it batched.
 */
const stallingStream = () => {
  const chunks: string[] = [];
  /** The lines received so far, each with its newline: a chunk holds the lines of a turn. */
  const received: string[] = [];
  const waiting: Array<() => void> = [];
  let stalled = false;
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      received.push(...(chunk.toString().match(/[^\n]*\n/g) ?? []));
      if (stalled) waiting.push(done);
      else done();
    },
  });
  return {
    stream,
    received,
    stall: () => {
      stalled = true;
    },
    drain: async () => {
      stalled = false;
      // Each chunk's callback lets the next one in; wait until the stream holds nothing and
      // two turns passed with nothing new (a report written on 'drain' is written a turn later).
      for (let quiet = 0; quiet < 2; ) {
        const before = chunks.length;
        waiting.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
        quiet = waiting.length === 0 && stream.writableLength === 0 && chunks.length === before ? quiet + 1 : 0;
      }
    },
  };
};

const LINE = 'x'.repeat(99);
const BOUND = 10_000;

/** A writer over a stalling stream, through the command's text log as the CLI wires it. */
const loggedWriter = () => {
  const output = stallingStream();
  const writer = createLineWriter(output.stream, { maxBufferedBytes: BOUND, onRecovered: (lines) => log.dropped('stdout', lines) });
  const log = createCliLog({ format: 'text', quiet: false, out: writer.write, err: () => {} });
  return { ...output, writer };
};

describe('a log line writer over a stream that stalls', () => {
  it('writes the lines of one turn in one write, in order, at the end of the turn', async () => {
    const { writer, stream } = loggedWriter();
    const writes: string[] = [];
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string) => {
      writes.push(chunk);
      return write(chunk);
    }) as typeof stream.write;
    for (let n = 0; n < 50; n++) writer.write(`${n}`);
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([Array.from({ length: 50 }, (_, n) => `${n}\n`).join('')]);
  });

  it('writes what it holds at once when flushed, as before the process exits', () => {
    const { writer, stream } = loggedWriter();
    const writes: string[] = [];
    stream.write = ((chunk: string) => writes.push(chunk) > 0) as typeof stream.write;
    writer.write('last words');
    writer.flush();
    expect(writes).toEqual(['last words\n']);
  });

  it('writes every line while the reader keeps up', async () => {
    const { writer, received, drain } = loggedWriter();
    for (let n = 0; n < 1000; n++) writer.write(`${n}`);
    await drain();
    expect(received).toHaveLength(1000);
    expect(writer.droppedLines()).toBe(0);
  });

  it('holds at most its bound while stalled, drops and counts the rest, and says so once the stream drains', async () => {
    const { writer, received, stall, drain, stream } = loggedWriter();
    stall();
    let mostHeld = 0;
    for (let n = 0; n < 10_000; n++) {
      writer.write(LINE);
      mostHeld = Math.max(mostHeld, stream.writableLength);
    }
    // Held: under the bound plus one line, however many lines came (a million bytes were written).
    expect(mostHeld).toBeLessThan(BOUND + LINE.length + 1);
    // Kept: the lines that fill the bound (100 bytes each, newline included), no more.
    const kept = BOUND / (LINE.length + 1);
    expect(writer.droppedLines()).toBe(10_000 - kept);

    await drain();
    expect(received).toHaveLength(kept + 1);
    expect(received.at(-1)).toBe(`warning: dropped ${10_000 - kept} log lines while stdout was blocked\n`);

    // Once drained, lines flow again; the count stays for the metrics, the report is not repeated.
    writer.write('after');
    await drain();
    expect(received.slice(-1)).toEqual(['after\n']);
    expect(writer.droppedLines()).toBe(10_000 - kept);
  });

  it('reports each stall of the reader on its own', async () => {
    const { writer, received, stall, drain } = loggedWriter();
    for (const lines of [500, 300]) {
      stall();
      for (let n = 0; n < lines; n++) writer.write(LINE);
      await drain();
    }
    const reports = received.filter((line) => line.startsWith('warning:'));
    expect(reports).toEqual([
      'warning: dropped 400 log lines while stdout was blocked\n',
      'warning: dropped 200 log lines while stdout was blocked\n',
    ]);
    expect(writer.droppedLines()).toBe(600);
  });

  it('reports at the next line when the bound is below what the stream buffers before it asks to wait', async () => {
    const output = stallingStream();
    const reports: number[] = [];
    const writer = createLineWriter(output.stream, { maxBufferedBytes: 300, onRecovered: (lines) => reports.push(lines) });
    output.stall();
    for (let n = 0; n < 10; n++) writer.write(LINE);
    await output.drain();
    expect(reports).toEqual([]);
    writer.write('next');
    expect(reports).toEqual([7]);
    writer.flush();
    expect(output.received.at(-1)).toBe('next\n');
  });

  it('marks the gap in JSON logs with a warn line that carries the count and the stream', async () => {
    const output = stallingStream();
    const writer = createLineWriter(output.stream, { maxBufferedBytes: BOUND, onRecovered: (lines) => log.dropped('stdout', lines) });
    const log = createCliLog({ format: 'json', quiet: false, out: writer.write, err: () => {}, now: () => 0 });
    output.stall();
    for (let n = 0; n < 200; n++) log.info('hello');
    await output.drain();
    expect(JSON.parse(output.received.at(-1)!)).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'warn',
      message: `dropped ${writer.droppedLines()} log lines while stdout was blocked`,
      droppedLines: writer.droppedLines(),
      stream: 'stdout',
    });
    expect(writer.droppedLines()).toBeGreaterThan(0);
  });
});
