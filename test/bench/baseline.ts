/**
 * @module The bench's two references, one program: the same work (`referenceWork.ts`),
 * answered with the same bytes as our service, served through bare `node:http` (writeHead and end, what `node:http` can do without a
 * framework, schemas or a Request/Response layer) or, with `--library-floor`, through
 * `@whatwg-node/server`'s `createServerAdapter` answering with `@whatwg-node/fetch`'s
 * Response, as our standalone server does: the least any server on that library can cost.
 * The bench reports every other server as a ratio to both.
 *
 * Run: `node --import tsx test/bench/baseline.ts --api-key KEY --data FILE [--memory]
 * [--library-floor] [--port 0]`. It prints `listening on http://127.0.0.1:PORT/v1` when
 * ready and exits 0 on SIGTERM.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Response } from '@whatwg-node/fetch';
import { createServerAdapter } from '@whatwg-node/server';
import { createReferenceWork, MAX_BODY_BYTES, type ReferenceAnswer, type ReferenceWork } from './referenceWork.js';

/** The body of a node:http request, or undefined past `MAX_BODY_BYTES` (the rest is drained). */
const readNodeBody = (req: IncomingMessage): Promise<Uint8Array | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** Bare node:http: the answer is one writeHead (Content-Length added, as the library adds it) and one end. */
const bareListener = (work: ReferenceWork): RequestListener => {
  const send = (res: ServerResponse, answer: ReferenceAnswer) => {
    if (answer.body !== undefined) answer.headers['content-length'] = String(Buffer.byteLength(answer.body));
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  };
  return (req, res) => {
    const url = req.url ?? '/';
    const question = url.indexOf('?');
    const { headers } = req;
    const answer = work.answer({
      method: req.method ?? 'GET',
      path: question === -1 ? url : url.slice(0, question),
      query: question === -1 ? '' : url.slice(question + 1),
      authorization: headers.authorization,
      ifNoneMatch: headers['if-none-match'],
      contentType: headers['content-type'],
      contentEncoding: headers['content-encoding'],
      readBody: () => readNodeBody(req),
    });
    if (answer instanceof Promise) {
      answer.then(
        (settled) => send(res, settled),
        () => send(res, work.failed()),
      );
    } else send(res, answer);
  };
};

/** A Request body, or undefined past `MAX_BODY_BYTES`: read whole when its length is declared (the library's cheap path), else streamed. */
const readFetchBody = async (request: Request): Promise<Uint8Array | undefined> => {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^[0-9]+$/.test(declared)) {
    if (Number(declared) > MAX_BODY_BYTES) return undefined;
    const bytes = new Uint8Array(await request.arrayBuffer());
    return bytes.byteLength > MAX_BODY_BYTES ? undefined : bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
};

/**
 * The library floor: `@whatwg-node/server` over the same node:http server, the answer a
 * `@whatwg-node/fetch` Response with a text body and a plain header record, to which the
 * library adds Content-Length and which it writes with one writeHead and one write (as our
 * server answers).
 */
const libraryListener = (work: ReferenceWork): RequestListener => {
  const respond = (answer: ReferenceAnswer) => new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
  const adapter = createServerAdapter((request: Request) => {
    // The URL is absolute: skip `http://host`, without the cost of parsing it.
    const url = request.url;
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    const question = url.indexOf('?', pathStart);
    const answer = work.answer({
      method: request.method,
      path: question === -1 ? url.slice(pathStart) : url.slice(pathStart, question),
      query: question === -1 ? '' : url.slice(question + 1),
      authorization: request.headers.get('authorization'),
      ifNoneMatch: request.headers.get('if-none-match'),
      contentType: request.headers.get('content-type'),
      contentEncoding: request.headers.get('content-encoding'),
      readBody: () => readFetchBody(request),
    });
    return answer instanceof Promise ? answer.then(respond, () => respond(work.failed())) : respond(answer);
  });
  return adapter as unknown as RequestListener;
};

/** How to start a reference. */
export interface ReferenceOptions {
  keys: string[];
  dataFile: string;
  /** Creates stay in memory; nothing is written. */
  memory: boolean;
  /** Serve through `@whatwg-node/server` instead of bare node:http. */
  libraryFloor: boolean;
  port?: number;
  host?: string;
}

/** Starts a reference; resolves with its URL and a stop function. */
export const startReference = async (options: ReferenceOptions) => {
  const work = createReferenceWork(options);
  // The same node:http settings as our standalone server (adapters/node/serve.ts), so the
  // references differ from it only above node:http.
  const server = createServer(
    { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 },
    options.libraryFloor ? libraryListener(work) : bareListener(work),
  );
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/v1`,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await work.idle();
    },
  };
};

const runFromCommandLine = async () => {
  const { values } = parseArgs({
    options: {
      'api-key': { type: 'string', multiple: true },
      data: { type: 'string' },
      memory: { type: 'boolean', default: false },
      'library-floor': { type: 'boolean', default: false },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  if (!values.data || !values['api-key']?.length) {
    process.stderr.write('usage: baseline.ts --api-key KEY --data FILE [--memory] [--library-floor] [--port N] [--host H]\n');
    process.exit(2);
  }
  const reference = await startReference({
    keys: values['api-key'],
    dataFile: values.data,
    memory: values.memory,
    libraryFloor: values['library-floor'],
    port: Number(values.port),
    host: values.host,
  });
  process.stdout.write(`listening on ${reference.url}\n`);
  process.once('SIGTERM', () => void reference.stop().then(() => process.exit(0)));
  process.once('SIGINT', () => void reference.stop().then(() => process.exit(0)));
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runFromCommandLine();
