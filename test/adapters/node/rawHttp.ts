/**
 * @module Speaks HTTP/1.1 over a bare socket, byte for byte, for tests that send what no
 * HTTP client would (a malformed Host, two Authorization lines, a pipeline never read), and
 * reads the answers back, framed by Content-Length or chunked encoding.
 */
import net from 'node:net';

/** One answer read off the wire. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/** What came back on one connection. */
export interface RawExchange {
  answers: RawAnswer[];
  /** Whether the server closed the connection (rather than the wait ending). */
  closed: boolean;
  /** Whether the connection was reset (ECONNRESET) rather than closed in order. */
  reset: boolean;
  /** Bytes received after the last whole answer (a cut-off answer). */
  rest: string;
}

/** How to run an exchange. */
export interface ExchangeOptions {
  /** The local address to connect from: another loopback address is another client to the server. */
  localAddress?: string;
  /** Resolve once this many answers arrived (else only when the server closes or time is up). */
  answers?: number;
  /** The longest wait, in milliseconds; 5 s by default. */
  timeoutMs?: number;
  /** The request methods in order, where a HEAD answer must be read without its body. */
  methods?: string[];
  /** Resolve once nothing has arrived for this many milliseconds after the last write. */
  quietMs?: number;
}

/**
 * Parses whole answers from the start of `data` (latin1, so bytes and characters match).
 * `methods` tells which answers belong to HEAD requests (an answer to HEAD followed by
 * another is recognised without it). Stops at the first incomplete one.
 */
export const parseAnswers = (data: string, methods: string[] = []): { answers: RawAnswer[]; rest: string } => {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = data.slice(at, headEnd).split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!status) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const code = Number(status[1]);
    let next = headEnd + 4;
    let body = '';
    const informational = code >= 100 && code < 200;
    // An answer to HEAD has none; without a list of methods it shows as the next status line
    // beginning where its body would (no JSON body begins so).
    const bodiless =
      informational || code === 204 || code === 304 || methods[answers.length] === 'HEAD' || data.startsWith('HTTP/1.', headEnd + 4);
    if (!bodiless) {
      if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
        let complete = false;
        for (;;) {
          const sizeEnd = data.indexOf('\r\n', next);
          if (sizeEnd < 0) break;
          const size = Number.parseInt(data.slice(next, sizeEnd), 16);
          if (Number.isNaN(size) || data.length < sizeEnd + 2 + size + 2) break;
          body += data.slice(sizeEnd + 2, sizeEnd + 2 + size);
          next = sizeEnd + 2 + size + 2;
          if (size === 0) {
            complete = true;
            break;
          }
        }
        if (!complete) break;
      } else if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length']);
        if (data.length < next + length) break;
        body = data.slice(next, next + length);
        next += length;
      } else {
        // Framed by the end of the connection: whatever is left.
        body = data.slice(next);
        next = data.length;
      }
    }
    at = next;
    if (!informational) answers.push({ status: code, headers, body });
  }
  return { answers, rest: data.slice(at) };
};

/**
 * Connects, writes `bytes` (each part as its own write), and resolves with what came back:
 * once `answers` answers arrived, the server closed the connection, or `timeoutMs` passed.
 */
export const exchange = (
  port: number,
  bytes: string | Buffer | Array<string | Buffer>,
  options: ExchangeOptions = {},
): Promise<RawExchange> =>
  new Promise((resolve, reject) => {
    const { localAddress, answers: wanted, timeoutMs = 5_000, methods, quietMs } = options;
    const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    let data = '';
    let reset = false;
    let settled = false;
    let quiet: NodeJS.Timeout | undefined;
    const beQuiet = () => {
      if (quietMs === undefined) return;
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(false), quietMs);
    };
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(quiet);
      socket.destroy();
      resolve({ ...parseAnswers(data, methods), closed, reset });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      beQuiet();
      if (wanted !== undefined && parseAnswers(data, methods).answers.length >= wanted) finish(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      for (const part of Array.isArray(bytes) ? bytes : [bytes]) socket.write(part);
      beQuiet();
    });
  });
