/**
 * @module The work both references of the bench do, whatever serves their HTTP: the three
 * operations on the same animals with the same bearer check (SHA-256 of the presented key
 * against the configured digests, in constant time), a minimal validation and durable
 * creates, answered as a status, a header record and a body text. `baseline.ts` serves it
 * through bare `node:http` or through `@whatwg-node/server`, so the two references differ
 * only in their HTTP layer.
 *
 * Creates are durable the way the JSON-file storage must make them (unless `memory`): the
 * whole document rewritten to a temporary file, fsynced and renamed (then the folder
 * fsynced), once per group of creates that arrived while the previous write was under way,
 * reusing the bytes of animals already written.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

type Status = 'available' | 'pending' | 'sold';
interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: Status;
}

/** What the work needs of a request, read by the HTTP layer in its own cheapest way. */
export interface ReferenceRequest {
  method: string;
  /** The path, without the query. */
  path: string;
  /** The query, without the `?`; empty when there is none. */
  query: string;
  authorization: string | null | undefined;
  contentType: string | null | undefined;
  /** The body's bytes, or undefined once it passes `MAX_BODY_BYTES` (then the rest is dropped). */
  readBody(): Promise<Uint8Array | undefined>;
}

/** An answer: the HTTP layer writes exactly these headers (with the server's Date and Connection) and this body. */
export interface ReferenceAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The largest body read, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

const STATUSES = new Set<string>(['available', 'pending', 'sold']);
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BASE = '/v1';
const CODES: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  503: 'storage_unavailable',
};

const sha256 = (text: string) => createHash('sha256').update(text).digest();

const json = (status: number, body: unknown, headers?: Record<string, string>): ReferenceAnswer => {
  const text = JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers },
    body: text,
  };
};
const error = (status: number, message: string, headers?: Record<string, string>) =>
  json(status, { code: CODES[status] ?? 'internal_error', message, status }, headers);

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

/**
 * The data file's bytes, kept between writes: animals never change and only grow at the end,
 * so each write serialises only the animals added since the last one (as the JSON-file
 * storage does) instead of the whole catalogue.
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

/** How to start the work: the keys, the data file it loads, and whether creates stay in memory. */
export interface ReferenceWorkOptions {
  keys: string[];
  dataFile: string;
  memory: boolean;
}

/**
 * Loads the animals and returns the work: `answer` is synchronous for everything but a
 * create, so an HTTP layer pays for no promise it does not need.
 */
export const createReferenceWork = (options: ReferenceWorkOptions) => {
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
  // The loaded animals are serialised by the first write, as the JSON-file storage does.
  const durability = createDurability(options.memory ? undefined : options.dataFile, createDocument(all));

  const authorised = (header: string | null | undefined) => {
    const match = header === undefined || header === null ? null : BEARER.exec(header);
    if (!match) return false;
    const presented = sha256(match[1]!);
    let found = false;
    for (const digest of digests) found = timingSafeEqual(presented, digest) || found;
    return found;
  };

  const listPets = (query: string): ReferenceAnswer => {
    const params = new URLSearchParams(query);
    const limitText = params.get('limit') ?? '20';
    const limit = /^[0-9]{1,3}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > 100) return error(400, 'limit must be an integer from 1 to 100.');
    const status = params.get('status') ?? undefined;
    if (status !== undefined && !STATUSES.has(status)) return error(400, 'status must be available, pending or sold.');
    const cursorText = params.get('cursor');
    const after = cursorText === null ? 0 : Number(cursorText);
    if (!Number.isSafeInteger(after) || after < 0) return error(400, 'The cursor is not valid.');
    const run = status === undefined ? all : byStatus.get(status)!;
    const start = firstAfter(run, after);
    const end = Math.min(run.length, start + limit);
    const page: Pet[] = [];
    for (let i = start; i < end; i++) page.push(run[i]!);
    if (end === run.length) return json(200, page);
    const next = `${BASE}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${page.at(-1)!.id}`;
    return json(200, page, { link: `<${next}>; rel="next"` });
  };

  const createPet = async (request: ReferenceRequest): Promise<ReferenceAnswer> => {
    const type = request.contentType;
    if (type === undefined || type === null || type.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
      return error(415, 'The body must be application/json.');
    }
    const bytes = await request.readBody();
    if (bytes === undefined) return error(413, 'The body is larger than 64 KiB.');
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    } catch {
      return json(400, { code: 'invalid_json', message: 'The body is not valid JSON.', status: 400 });
    }
    const checked = checkNewPet(body);
    if (typeof checked === 'string') return error(400, checked);
    const pet: Pet = { id: (all.at(-1)?.id ?? 0) + 1, ...checked };
    add(pet);
    try {
      await durability.flush();
    } catch {
      return error(503, 'The animal could not be stored.');
    }
    return json(201, pet, { location: `${BASE}/pets/${pet.id}` });
  };

  const getPet = (idText: string): ReferenceAnswer => {
    if (!/^-?[0-9]{1,19}$/.test(idText)) return error(400, 'The pet id must be an integer.');
    const pet = byId.get(Number(idText));
    return pet ? json(200, pet) : error(404, `No animal has the id ${idText}.`);
  };

  return {
    /** Answers one request. */
    answer: (request: ReferenceRequest): ReferenceAnswer | Promise<ReferenceAnswer> => {
      const { method, path } = request;
      if (!authorised(request.authorization)) {
        return error(401, 'A valid API key is needed.', { 'www-authenticate': 'Bearer realm="animal-store"' });
      }
      if (path === `${BASE}/pets`) {
        if (method === 'GET') return listPets(request.query);
        if (method === 'POST') return createPet(request);
        return error(405, 'Use GET or POST.', { allow: 'GET, HEAD, POST' });
      }
      if (path.startsWith(`${BASE}/pets/`) && path.indexOf('/', BASE.length + 6) === -1) {
        if (method === 'GET') return getPet(path.slice(BASE.length + 6));
        return error(405, 'Use GET.', { allow: 'GET, HEAD' });
      }
      return error(404, 'Nothing here.');
    },
    /** The answer to a request that failed unexpectedly. */
    failed: (): ReferenceAnswer => error(500, 'Something went wrong.'),
    /** Resolves once no durable write is under way. */
    idle: () => durability.idle(),
  };
};

/** The work, started. */
export type ReferenceWork = ReturnType<typeof createReferenceWork>;
