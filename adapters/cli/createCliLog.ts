/**
 * @module What the command prints while it serves: the access log and its own messages on
 * stdout, warnings and errors on stderr; as text lines, or as one JSON object per line.
 */
import { type AccessLogEntry, isAnimalStoreError } from '../../core/index.js';
import { reasonOf } from '../../storage/reasonOf.js';

/** How lines are written. */
export type LogFormat = 'text' | 'json';

/** Where the command's lines go. */
export interface CliLog {
  /** The command's own news on stdout: where it listens, that it is stopping. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something the operator should fix or know, on stderr. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** A failure, on stderr; an unforeseen error with its stack and cause (never shown to a client). */
  error(message: string, error?: unknown): void;
  /** One line per answer on stdout; `undefined` when the access log is off (`--quiet`). */
  access: ((entry: AccessLogEntry) => void) | undefined;
  /** Tells, on the stream that lost them, of lines dropped while it could not keep up. */
  dropped(stream: LogStream, lines: number): void;
}

/** The two streams the command writes to. */
export type LogStream = 'stdout' | 'stderr';

/** The line that marks a gap in a log: what an operator reads, in both formats. */
const droppedMessage = (stream: LogStream, lines: number) =>
  `dropped ${lines} log ${lines === 1 ? 'line' : 'lines'} while ${stream} was blocked`;

/** How to make the log. */
export interface CliLogOptions {
  format: LogFormat;
  /** No access log. */
  quiet: boolean;
  /** Writes a line (without its newline) to stdout, and to stderr. */
  out(line: string): void;
  err(line: string): void;
  /** The wall clock; `Date.now` by default. */
  now?: () => number;
}

/**
 * An error for the operator's log: its stack, and what caused it (a database's own words).
 * A known failure's message says all (a storage's cause, say): only the unforeseen need a stack.
 */
const describeError = (error: unknown): string | undefined => {
  if (error === undefined || isAnimalStoreError(error)) return undefined;
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? text : `${text}\n  caused by: ${reasonOf(cause)}`;
};

/**
 * Creates the log. An access line holds the time, method, path (never the query, which may
 * hold a cursor), status and milliseconds; in JSON also the level, request id, operation
 * and `durationMs` to the microsecond; last, the calling key's name (its fingerprint when it
 * has none), after authentication. No line ever holds a header, so never a key.
 */
export const createCliLog = ({ format, quiet, out, err, now = Date.now }: CliLogOptions): CliLog => {
  // A loaded server writes many lines within one millisecond: their time is written once.
  let lastMillisecond = Number.NaN;
  let lastTime = '';
  const time = () => {
    const millisecond = now();
    if (millisecond !== lastMillisecond) {
      lastMillisecond = millisecond;
      lastTime = new Date(millisecond).toISOString();
    }
    return lastTime;
  };
  if (format === 'json') {
    const line = (level: string, message: string, fields: Record<string, unknown> = {}) =>
      JSON.stringify({ time: time(), level, message, ...fields });
    return {
      dropped: (stream, lines) =>
        (stream === 'stdout' ? out : err)(line('warn', droppedMessage(stream, lines), { droppedLines: lines, stream })),
      info: (message, fields) => out(line('info', message, fields)),
      warn: (message, fields) => err(line('warn', message, fields)),
      error(message, error) {
        const described = describeError(error);
        err(line('error', message, described === undefined ? {} : { error: described }));
      },
      access: quiet
        ? undefined
        : ({ method, path, status, milliseconds, operation, requestId, key }) =>
            out(
              JSON.stringify({
                time: time(),
                level: 'info',
                requestId: requestId ?? null,
                method,
                path,
                status,
                operation: operation ?? null,
                // The calling key's name once authenticated, null before (never the key).
                key: key ?? null,
                durationMs: Math.round(milliseconds * 1000) / 1000,
              }),
            ),
    };
  }
  return {
    dropped: (stream, lines) => (stream === 'stdout' ? out : err)(`warning: ${droppedMessage(stream, lines)}`),
    info: (message) => out(message),
    warn: (message) => err(`warning: ${message}`),
    error(message, error) {
      const described = describeError(error);
      err(described === undefined ? `error: ${message}` : `error: ${message}: ${described}`);
    },
    access: quiet
      ? undefined
      : ({ method, path, status, milliseconds, key }) =>
          out(`${time()} ${method} ${path} ${status} ${milliseconds.toFixed(1)}ms${key === undefined ? '' : ` ${key}`}`),
  };
};
