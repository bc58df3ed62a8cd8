/**
 * @module The benchmark's reference: a hand-written bare `node:http` server doing the three
 * operations on the same animals with the same bearer check (SHA-256 of the presented key
 * against the configured digest, in constant time) and a minimal validation. It is what
 * `node:http` can do without a framework, schemas or a Request/Response layer; the
 * benchmark reports every other server as a ratio to it.
 *
 * Run: `node --import tsx test/bench/baseline.ts --api-key KEY --data FILE [--memory] [--port 0]`.
 * It prints `listening on http://127.0.0.1:PORT/v1` when ready and exits 0 on SIGTERM. With
 * `--memory` creates stay in memory; without it they are made durable the way the JSON-file
 * store must: the whole document rewritten to a temporary file, fsynced and renamed (then
 * the folder fsynced), once per group of creates that arrived while the previous write was
 * under way, reusing the bytes of animals already written.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

type Status = 'available' | 'pending' | 'sold';
interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: Status;
}

const STATUSES = new Set<string>(['available', 'pending', 'sold']);
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_BODY_BYTES = 64 * 1024;
const BASE = '/v1';
const JSON_HEADERS = { 'content-type': 'application/json' };

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The first position in an id-ordered run whose id is greater than `after`. */
const firstAfter = (run: readonly Pet[], after: number) => {
  let low = 0;
  let high = run.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (run[middle]!.id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

const sendJson = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

const CODES: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  503: 'storage_unavailable',
};
const sendError = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>) =>
  sendJson(res, status, { code: CODES[status] ?? 'internal_error', message, status }, headers);

/**
 * The data file's bytes, kept between writes: animals never change and only grow at the end,
 * so each write serialises only the animals added since the last one (as the JSON-file
 * store does) instead of the whole catalogue.
 */
const createDocument = (pets: readonly Pet[]) => {
  const chunks: Buffer[] = [];
  let serialised = 0;
  return (): Buffer[] => {
    if (serialised < pets.length) {
      let text = '';
      for (let i = serialised; i < pets.length; i++) text += `${i === 0 ? '' : ','}${JSON.stringify(pets[i])}`;
      chunks.push(Buffer.from(text));
      serialised = pets.length;
      // Keep the list short: fold the small tails into one buffer now and then.
      if (chunks.length > 64) chunks.splice(1, chunks.length - 1, Buffer.concat(chunks.slice(1)));
    }
    const nextId = (pets.at(-1)?.id ?? 0) + 1;
    return [Buffer.from(`{"format":1,"nextId":${nextId},"pets":[`), ...chunks, Buffer.from(']}\n')];
  };
};

/** Group commit: creates wait for the next whole-document write (temp file, fsync, rename, fsync folder), which carries them all. */
const createDurability = (file: string | undefined, document: () => Buffer[]) => {
  let waiting: (() => void)[] = [];
  let failing: ((error: unknown) => void)[] = [];
  let writing = false;
  const writeDocument = async () => {
    const temporary = `${file}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writev(document());
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file!);
    const directory = await open(dirname(file!), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  };
  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const resolved = waiting;
      const rejected = failing;
      waiting = [];
      failing = [];
      try {
        await writeDocument();
        for (const resolve of resolved) resolve();
      } catch (error) {
        for (const reject of rejected) reject(error);
      }
    }
    writing = false;
  };
  return {
    /** Resolves once everything added so far is on disk (at once with no file). */
    flush: (): Promise<void> =>
      file === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiting.push(resolve);
            failing.push(reject);
            if (!writing) void drain();
          }),
    idle: async () => {
      for (let i = 0; i < 1000 && writing; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
};

/** A NewPet with exactly name, categoryId and an optional status; the error text otherwise. */
const checkNewPet = (body: unknown): { name: string; categoryId: number; status: Status } | string => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The body must be a JSON object.';
  const { name, categoryId, status, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return `Unknown field ${unknown[0]}.`;
  if (typeof name !== 'string' || name.length < 1 || name.length > 200 || name.trim() === '') return 'name must be 1 to 200 characters.';
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1)
    return 'categoryId must be a positive integer.';
  if (status !== undefined && (typeof status !== 'string' || !STATUSES.has(status))) return 'status must be available, pending or sold.';
  return { name, categoryId, status: (status as Status | undefined) ?? 'available' };
};

const readBody = (req: IncomingMessage): Promise<Buffer | undefined> =>
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

/** Starts the baseline; resolves with its URL and a stop function. */
export const startBaseline = async (options: { keys: string[]; dataFile: string; memory: boolean; port?: number; host?: string }) => {
  // The catalogue: every animal in id order, one run per status, and an id map.
  const all: Pet[] = [];
  const byStatus = new Map<string, Pet[]>([...STATUSES].map((status) => [status, []]));
  const byId = new Map<number, Pet>();
  const add = (pet: Pet) => {
    all.push(pet);
    byStatus.get(pet.status)!.push(pet);
    byId.set(pet.id, pet);
  };
  const loaded = JSON.parse(readFileSync(options.dataFile, 'utf8')) as { pets: Pet[] };
  for (const pet of loaded.pets) add(pet);
  const digests = options.keys.map(sha256);
  // The loaded animals are serialised by the first write, as the JSON-file store does.
  const durability = createDurability(options.memory ? undefined : options.dataFile, createDocument(all));

  const authorised = (header: string | undefined) => {
    const match = header === undefined ? null : BEARER.exec(header);
    if (!match) return false;
    const presented = sha256(match[1]!);
    let found = false;
    for (const digest of digests) found = timingSafeEqual(presented, digest) || found;
    return found;
  };

  const listPets = (res: ServerResponse, query: string) => {
    const params = new URLSearchParams(query);
    const limitText = params.get('limit') ?? '20';
    const limit = /^[0-9]{1,3}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > 100) return sendError(res, 400, 'limit must be an integer from 1 to 100.');
    const status = params.get('status') ?? undefined;
    if (status !== undefined && !STATUSES.has(status)) return sendError(res, 400, 'status must be available, pending or sold.');
    const cursorText = params.get('cursor');
    const after = cursorText === null ? 0 : Number(cursorText);
    if (!Number.isSafeInteger(after) || after < 0) return sendError(res, 400, 'The cursor is not valid.');
    const run = status === undefined ? all : byStatus.get(status)!;
    const start = firstAfter(run, after);
    const end = Math.min(run.length, start + limit);
    const page: Pet[] = [];
    for (let i = start; i < end; i++) page.push(run[i]!);
    if (end === run.length) return sendJson(res, 200, page);
    const next = `${BASE}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${page.at(-1)!.id}`;
    return sendJson(res, 200, page, { link: `<${next}>; rel="next"` });
  };

  const createPet = async (req: IncomingMessage, res: ServerResponse) => {
    const type = req.headers['content-type'];
    if (type === undefined || type.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
      return sendError(res, 415, 'The body must be application/json.');
    }
    const bytes = await readBody(req);
    if (bytes === undefined) return sendError(res, 413, 'The body is larger than 64 KiB.');
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      return sendJson(res, 400, { code: 'invalid_json', message: 'The body is not valid JSON.', status: 400 });
    }
    const checked = checkNewPet(body);
    if (typeof checked === 'string') return sendError(res, 400, checked);
    const pet: Pet = { id: (all.at(-1)?.id ?? 0) + 1, ...checked };
    add(pet);
    try {
      await durability.flush();
    } catch {
      return sendError(res, 503, 'The animal could not be stored.');
    }
    return sendJson(res, 201, pet, { location: `${BASE}/pets/${pet.id}` });
  };

  const getPet = (res: ServerResponse, idText: string) => {
    if (!/^-?[0-9]{1,19}$/.test(idText)) return sendError(res, 400, 'The pet id must be an integer.');
    const pet = byId.get(Number(idText));
    return pet ? sendJson(res, 200, pet) : sendError(res, 404, `No animal has the id ${idText}.`);
  };

  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const url = req.url ?? '/';
    const question = url.indexOf('?');
    const path = question === -1 ? url : url.slice(0, question);
    const query = question === -1 ? '' : url.slice(question + 1);
    if (!authorised(req.headers.authorization)) {
      return sendError(res, 401, 'A valid API key is needed.', { 'www-authenticate': 'Bearer realm="animal-store"' });
    }
    if (path === `${BASE}/pets`) {
      if (req.method === 'GET') return listPets(res, query);
      if (req.method === 'POST') {
        return void createPet(req, res).catch(() => sendError(res, 500, 'Something went wrong.'));
      }
      return sendError(res, 405, 'Use GET or POST.', { allow: 'GET, HEAD, POST' });
    }
    if (path.startsWith(`${BASE}/pets/`) && path.indexOf('/', BASE.length + 6) === -1) {
      if (req.method === 'GET') return getPet(res, path.slice(BASE.length + 6));
      return sendError(res, 405, 'Use GET.', { allow: 'GET, HEAD' });
    }
    return sendError(res, 404, 'Nothing here.');
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}${BASE}`,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await durability.idle();
    },
  };
};

const runFromCommandLine = async () => {
  const { values } = parseArgs({
    options: {
      'api-key': { type: 'string', multiple: true },
      data: { type: 'string' },
      memory: { type: 'boolean', default: false },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  if (!values.data || !values['api-key']?.length) {
    process.stderr.write('usage: baseline.ts --api-key KEY --data FILE [--memory] [--port N] [--host H]\n');
    process.exit(2);
  }
  const baseline = await startBaseline({
    keys: values['api-key'],
    dataFile: values.data,
    memory: values.memory,
    port: Number(values.port),
    host: values.host,
  });
  process.stdout.write(`listening on ${baseline.url}\n`);
  process.once('SIGTERM', () => void baseline.stop().then(() => process.exit(0)));
  process.once('SIGINT', () => void baseline.stop().then(() => process.exit(0)));
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runFromCommandLine();
