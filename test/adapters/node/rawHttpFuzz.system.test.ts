/**
 * @module Fuzzes the real server (the `animal-store serve` command) with raw HTTP bytes
 * (issue 13, "Proof"): random and mutated requests, odd targets and methods, duplicate and
 * huge headers, lying Content-Length and Transfer-Encoding, truncated bodies, pipelines
 * written in pieces. Whatever comes in, no answer is a 500, none shows a stack or a path of
 * the server's, every error is an Error body whose status is the answer's, and the server is
 * alive and healthy after.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverProcesses, startCli } from '../../support/startCli.js';
import { LEAK } from './errorAnswers.js';
import { exchange, type RawExchange } from './rawHttp.js';

const KEY = 'fuzz-test-key-0123456789abcdef';
/** How long the fuzzing goes on, in milliseconds. */
const FUZZ_FOR_MS = 20_000;

/** One request as sent: its bytes (latin1). */
interface RawRequest {
  bytes: string;
}

const crlf = (lines: string[]) => lines.map((line) => `${line}\r\n`).join('');

// --- Pieces of requests -------------------------------------------------------------------

const anyText = (maxLength: number) => fc.string({ unit: 'binary-ascii', maxLength });
const oddBits = fc.constantFrom(
  '\x00',
  '\r',
  '\n',
  '\t',
  ' ',
  '%',
  '%zz',
  '%00',
  '%2F',
  '\\',
  '#',
  '?',
  '@',
  '\x7f',
  '\xff',
  '..',
  '//',
  '*',
  '"',
  '{',
  '\u00e9',
);
const segment = fc.oneof(
  fc.constantFrom('v1', 'pets', '1', '42', 'healthz', 'openapi.json', '-1', '9007199254740993', '1e3', '01', ''),
  anyText(10),
  oddBits,
);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('limit', 'status', 'cursor', 'x', ''),
      fc.oneof(fc.constantFrom('1', '20', '100', '101', '0', '-1', '1.5', 'sold', 'available', 'AAAA', ''), anyText(16)),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`));
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`);
const goodTarget = fc.constantFrom(
  '/v1/pets',
  '/v1/pets?limit=2',
  '/v1/pets?status=sold&limit=1',
  '/v1/pets/1',
  '/v1/pets/2',
  '/healthz',
  '/v1/openapi.json',
);
const host = fc.oneof(
  fc.constantFrom(
    'localhost',
    'example.com:8080',
    '[::1]:80',
    '127.0.0.1',
    'a b',
    '[::1',
    '%zz',
    'x:99999',
    'x/v1/pets/1#',
    '',
    'x\\y',
    'x?y',
  ),
  anyText(24),
);
const target = fc.oneof(
  { weight: 4, arbitrary: goodTarget },
  { weight: 3, arbitrary: fc.tuple(path, query).map(([p, q]) => p + q) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', '//'), host, goodTarget).map((parts) => parts.join('')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('*', 'example.com:443', '', ' ', `/${'a'.repeat(9_000)}`, '/v1/pets#frag', '/v1/pets?limit=1#x'),
  },
  { weight: 1, arbitrary: anyText(40) },
);
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'POST') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PRI', 'get', 'M-SEARCH', 'X'.repeat(40)),
  },
  { weight: 1, arbitrary: anyText(8) },
);
const version = fc.oneof(
  { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
  { weight: 2, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'http/1.1', 'HTTP/1.1 extra', 'HTTP/', '') },
);
const body = fc.oneof(
  fc.constantFrom(
    '{"name":"Rex","categoryId":1}',
    '{"name":"Rex","categoryId":1,"status":"sold"}',
    '{"name":"","categoryId":0}',
    '{}',
    '[]',
    'null',
    '{"name":"Rex",',
  ),
  fc.json({ maxDepth: 3 }),
  anyText(120),
  fc.constantFrom(`{"name":"${'x'.repeat(70 * 1024)}","categoryId":1}`, `{${'"a":1,'.repeat(3_000)}"b":1}`, '['.repeat(5_000)),
);
const chunked = (text: string, pieces: number) => {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  let out = '';
  for (let i = 0; i < text.length; i += size) out += `${text.slice(i, i + size).length.toString(16)}\r\n${text.slice(i, i + size)}\r\n`;
  return `${out}0\r\n\r\n`;
};
const extraHeader = fc.oneof(
  fc.tuple(fc.constant('Host'), host),
  fc.tuple(
    fc.constant('Authorization'),
    fc.constantFrom(`Bearer ${KEY}`, 'Bearer wrong-key-wrong-key', 'Basic YTpi', '', `Bearer ${KEY}, Bearer x`, `bearer ${KEY}`),
  ),
  fc.tuple(
    fc.constant('Content-Type'),
    fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', '', 'application/json; charset=latin1'),
  ),
  fc.tuple(
    fc.constant('Content-Length'),
    fc.oneof(fc.nat({ max: 200 }).map(String), fc.constantFrom('-1', 'abc', '99999999999999999999', '1, 2', '0x10', '')),
  ),
  fc.tuple(fc.constant('Transfer-Encoding'), fc.constantFrom('chunked', 'gzip, chunked', 'chunked, gzip', 'identity', 'CHUNKED', 'x')),
  fc.tuple(fc.constant('Content-Encoding'), fc.constantFrom('gzip', 'identity', 'br', 'x')),
  fc.tuple(fc.constant('Expect'), fc.constantFrom('100-continue', 'x')),
  fc.tuple(fc.constant('Connection'), fc.constantFrom('close', 'keep-alive', 'upgrade', 'Upgrade, HTTP2-Settings')),
  fc.tuple(fc.constant('Upgrade'), fc.constantFrom('websocket', 'h2c')),
  fc.tuple(fc.constant('X-Big'), fc.constantFrom('y'.repeat(20_000), 'y'.repeat(8_000))),
  fc.tuple(anyText(12), anyText(40)),
);

/** A request as a client would send it: well-formed, with a key most of the time. */
const wellFormed: fc.Arbitrary<RawRequest> = fc
  .record({
    method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'POST', 'DELETE', 'OPTIONS'),
    target: goodTarget,
    key: fc.boolean(),
    body,
    asChunks: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  })
  .map(({ method, target, key, body, asChunks }) => {
    const lines = [`${method} ${target} HTTP/1.1`, 'Host: localhost'];
    if (key) lines.push(`Authorization: Bearer ${KEY}`);
    if (method !== 'POST') return { bytes: `${crlf(lines)}\r\n` };
    lines.push('Content-Type: application/json');
    lines.push(asChunks === undefined ? `Content-Length: ${body.length}` : 'Transfer-Encoding: chunked');
    return { bytes: `${crlf(lines)}\r\n${asChunks === undefined ? body : chunked(body, asChunks)}` };
  });

/** A request made of odd parts: any method, target, version and headers, with or without a body. */
const oddlyMade: fc.Arbitrary<RawRequest> = fc
  .record({
    method,
    target,
    version,
    headers: fc.array(extraHeader, { maxLength: 6 }),
    withHost: fc.boolean(),
    body: fc.option(body, { nil: undefined }),
  })
  .map(({ method, target, version, headers, withHost, body }) => {
    const lines = [
      `${method} ${target} ${version}`,
      ...(withHost ? ['Host: localhost'] : []),
      ...headers.map(([name, value]) => `${name}: ${value}`),
    ];
    return { bytes: `${crlf(lines)}\r\n${body ?? ''}` };
  });

/** A well-formed request with a few bytes changed: inserted, deleted, repeated or cut short. */
const mutated: fc.Arbitrary<RawRequest> = fc
  .tuple(
    wellFormed,
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 16 }), fc.constantFrom('insert', 'delete', 'repeat', 'cut'), anyText(6)), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([request, edits]) => {
    let bytes = request.bytes;
    for (const [at, length, kind, text] of edits) {
      const i = at % (bytes.length + 1);
      if (kind === 'insert') bytes = bytes.slice(0, i) + text + bytes.slice(i);
      else if (kind === 'delete') bytes = bytes.slice(0, i) + bytes.slice(i + length);
      else if (kind === 'repeat') bytes = bytes.slice(0, i + length) + bytes.slice(i, i + length) + bytes.slice(i + length);
      else bytes = bytes.slice(0, Math.max(1, i));
    }
    return { bytes };
  });

const randomBytes: fc.Arbitrary<RawRequest> = fc
  .uint8Array({ minLength: 1, maxLength: 400 })
  .map((bytes) => ({ bytes: Buffer.from(bytes).toString('latin1') }));

/** What one connection sends: a pipeline of requests, written in one go or in pieces. */
const connectionCase = fc
  .record({
    requests: fc.array(
      fc.oneof(
        { weight: 3, arbitrary: wellFormed },
        { weight: 3, arbitrary: oddlyMade },
        { weight: 3, arbitrary: mutated },
        { weight: 1, arbitrary: randomBytes },
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    pipelineOf: fc.oneof({ weight: 9, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 30 }) }),
    cuts: fc.array(fc.nat(), { maxLength: 3 }),
  })
  .map(({ requests, pipelineOf, cuts }) => {
    // A long pipeline repeats the first request (past the limit of 16, it is refused with 429).
    const sent = pipelineOf > 1 ? Array(pipelineOf).fill(requests[0]!) : requests;
    const text = sent.map((request) => request.bytes).join('');
    const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
    const pieces = [0, ...points, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));
    return { pieces: pieces.filter((piece) => piece !== '').map((piece) => Buffer.from(piece, 'latin1')), count: sent.length };
  });

// --- What every answer must be --------------------------------------------------------------

/** Throws, with the case, unless everything that came back is an Error body or a valid answer. */
const checkExchange = (result: RawExchange, sent: string) => {
  const fail = (why: string) => {
    throw new Error(`${why}\nsent: ${JSON.stringify(sent.slice(0, 600))}\ngot: ${JSON.stringify(result.answers).slice(0, 1_500)}`);
  };
  if (LEAK.test(result.rest)) fail('a stack trace or a server path in what came back');
  for (const answer of result.answers) {
    if (answer.status >= 500) fail(`a ${answer.status}`);
    if (LEAK.test(answer.body) || LEAK.test(JSON.stringify(answer.headers))) fail('a stack trace or a server path in an answer');
    if (answer.body === '') continue;
    if (!/^application\/json/.test(answer.headers['content-type'] ?? '')) fail('a body that is not JSON');
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      fail('a body that does not parse as JSON');
    }
    if (answer.status >= 400) {
      const error = parsed as { code?: unknown; message?: unknown; status?: unknown };
      if (typeof error.code !== 'string' || typeof error.message !== 'string' || error.status !== answer.status) {
        fail('an error answer without an Error body of its status');
      }
    }
  }
};

// --- The run --------------------------------------------------------------------------------

describe('the server (animal-store serve) fuzzed with raw HTTP bytes', () => {
  let cli: Awaited<ReturnType<typeof startCli>>;
  let port: number;
  beforeAll(async () => {
    cli = await startCli(['serve', '--port', '0', '--memory', '--api-key', KEY, '--quiet']);
    port = Number(new URL(cli.url).port);
  });
  afterAll(killLeftoverProcesses);

  it('never answers 500, never shows a stack, answers every error with an Error body, and stays up', async () => {
    let connections = 0;
    let requests = 0;
    const statuses = new Map<number, number>();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(connectionCase, { minLength: 1, maxLength: 6 }), async (cases) => {
        await Promise.all(
          cases.map(async ({ pieces, count }) => {
            const result = await exchange(port, pieces, { answers: count, quietMs: 150, timeoutMs: 2_000 });
            connections++;
            requests += count;
            for (const answer of result.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            checkExchange(result, Buffer.concat(pieces).toString('latin1'));
          }),
        );
      }),
      { numRuns: 100_000, plugins: [fc.interruptAfterTimeLimit(FUZZ_FOR_MS)] },
    );
    const tally = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status} ×${count}`);
    console.log(
      `raw HTTP fuzz: ${requests} requests on ${connections} connections in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `answers checked: ${tally.join(', ')}`,
    );
    expect(requests).toBeGreaterThan(500);
    expect(cli.child.exitCode).toBeNull();
    const health = await fetch(`${new URL(cli.url).origin}/healthz`);
    expect(health.status).toBe(200);
  }, 60_000);
});
