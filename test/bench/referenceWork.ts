/**
 * @module The work both references of the bench do, whatever serves their HTTP: the three
 * operations on the same animals with the same checks as our service (the bearer key:
 * SHA-256 of the presented key against the configured digests, in constant time; the list
 * query, the id, the body: its type, size, JSON without a number that could round or a key
 * given twice, the animal's fields) and the same answer bytes on the measured requests
 * (`referenceAnswers.ts`: headers, ETag, sealed page cursors), answered as a status, a
 * header record and a body text. `baseline.ts` serves it through bare `node:http` or
 * through `@whatwg-node/server`, so the two references differ only in their HTTP layer.
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
import { animal, animalError, BASE, createCursors, created, error, page, type ReferenceAnswer } from './referenceAnswers.js';

export type { ReferenceAnswer } from './referenceAnswers.js';

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
  ifNoneMatch: string | null | undefined;
  contentType: string | null | undefined;
  contentEncoding: string | null | undefined;
  /** The body's bytes, or undefined once it passes `MAX_BODY_BYTES` (then the rest is dropped). */
  readBody(): Promise<Uint8Array | undefined>;
}

/** The largest body read, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

const STATUSES = new Set<string>(['available', 'pending', 'sold']);
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const REALM = 'Bearer realm="animal-store"';
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const LIST_PARAMETERS = new Set(['limit', 'status', 'cursor']);
// An animal's name as our service checks it (core/schemas/NewPet.ts).
const LONE_SURROGATE = /\p{Cs}/u;
const CONTROL = /\p{Cc}/u;
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

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

/** Counts the members of every object in a parsed JSON value. */
const countKeys = (value: unknown): number => {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) for (const item of value) count += countKeys(item);
  else for (const key in value) count += 1 + countKeys((value as Record<string, unknown>)[key]);
  return count;
};

/**
 * JSON that JSON.parse reads exactly, or a refusal: one pass outside the strings counts the
 * keys (a key given twice in an object leaves fewer members than keys) and refuses a number
 * other than an integer of at most 15 digits, or nesting deeper than 64 (no number rounds,
 * no key is silently dropped: what our service guarantees). The bench's bodies pass.
 */
const parseExactJson = (text: string): { value: unknown } | string => {
  let keys = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x22) {
      let end = i + 1;
      for (; end < text.length; end++) {
        const inside = text.charCodeAt(end);
        if (inside === 0x5c) end++;
        else if (inside === 0x22) break;
      }
      let next = end + 1;
      while (next < text.length && text.charCodeAt(next) <= 0x20) next++;
      if (text.charCodeAt(next) === 0x3a) keys++;
      i = end;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > 64) return 'The body is nested too deeply.';
    } else if (char === 0x7d || char === 0x5d) depth--;
    else if ((char >= 0x30 && char <= 0x39) || char === 0x2d) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
      const after = text.charCodeAt(end);
      if (end - i > 15 || after === 0x2e || after === 0x65 || after === 0x45) return 'The body holds a number that could round.';
      i = end - 1;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'The body is not valid JSON.';
  }
  return countKeys(value) === keys ? { value } : 'The body gives a key twice.';
};

/** A NewPet with exactly name, categoryId and an optional status, as our service checks it; the error text otherwise. */
const checkNewPet = (body: unknown): { name: string; categoryId: number; status: Status } | string => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The body must be a JSON object.';
  const { name, categoryId, status, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return `Unknown field ${unknown[0]}.`;
  if (typeof name !== 'string' || name.length < 1) return 'name must be a string.';
  let codePoints = 0;
  for (const _ of name) codePoints++;
  if (
    codePoints > 200 ||
    LONE_SURROGATE.test(name) ||
    CONTROL.test(name) ||
    BIDI_CONTROL.test(name) ||
    !/\S/.test(name) ||
    !VISIBLE.test(name)
  ) {
    return 'name must be 1 to 200 characters of visible, well-formed text.';
  }
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
  const cursors = createCursors();
  // The loaded animals are serialised by the first write, as the JSON-file storage does.
  const durability = createDurability(options.memory ? undefined : options.dataFile, createDocument(all));

  /** Undefined when the key is good; else the 401 (with a hint whether a token was sent). */
  const refusal = (header: string | null | undefined): ReferenceAnswer | undefined => {
    if (header === undefined || header === null || header.trim() === '') {
      return error(401, 'A valid API key is needed.', { 'www-authenticate': REALM });
    }
    if (header.includes(',')) return error(400, 'Send the Authorization header once.');
    const match = BEARER.exec(header);
    const presented = match === null ? undefined : sha256(match[1]!);
    let found = false;
    if (presented) for (const digest of digests) found = timingSafeEqual(presented, digest) || found;
    return found ? undefined : error(401, 'A valid API key is needed.', { 'www-authenticate': `${REALM}, error="invalid_token"` });
  };

  const listPets = (query: string, ifNoneMatch: string | null | undefined): ReferenceAnswer => {
    const params: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(query)) {
      if (!LIST_PARAMETERS.has(name)) return error(400, `Unknown query parameter ${name.slice(0, 32)}.`);
      if (Object.hasOwn(params, name)) return error(400, `The query parameter ${name} is given more than once.`);
      params[name] = value;
    }
    const limitText = params.limit ?? '20';
    const limit = /^[0-9]+$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > 100) return error(400, 'limit must be an integer from 1 to 100.');
    const status = params.status;
    if (status !== undefined && !STATUSES.has(status)) return error(400, 'status must be available, pending or sold.');
    const after = params.cursor === undefined ? 0 : cursors.decode(params.cursor, status);
    if (after === undefined) return error(400, 'The cursor is not valid.');
    const run = status === undefined ? all : byStatus.get(status)!;
    const start = firstAfter(run, after);
    const end = Math.min(run.length, start + limit);
    const pets: Pet[] = [];
    for (let i = start; i < end; i++) pets.push(run[i]!);
    const text = JSON.stringify(pets);
    if (end === run.length) return page(text, undefined, ifNoneMatch);
    const next = `${BASE}/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${cursors.encode(pets.at(-1)!.id, status)}`;
    return page(text, `<${next}>; rel="next"`, ifNoneMatch);
  };

  const createPet = async (request: ReferenceRequest): Promise<ReferenceAnswer> => {
    const type = request.contentType;
    if (type === undefined || type === null || type.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
      return error(415, 'The body must be application/json.');
    }
    const encoding = request.contentEncoding;
    if (encoding !== undefined && encoding !== null && encoding.trim().toLowerCase() !== 'identity') {
      return error(415, 'The body must not be encoded.');
    }
    const bytes = await request.readBody();
    if (bytes === undefined) return error(413, 'The body is larger than 64 KiB.');
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      return error(400, 'The body is not UTF-8.', undefined, 'invalid_json');
    }
    const parsed = parseExactJson(text);
    if (typeof parsed === 'string') return error(400, parsed, undefined, 'invalid_json');
    const checked = checkNewPet(parsed.value);
    if (typeof checked === 'string') return error(400, checked);
    const pet: Pet = { id: (all.at(-1)?.id ?? 0) + 1, ...checked };
    add(pet);
    try {
      await durability.flush();
    } catch {
      return error(503, 'The animal could not be stored.');
    }
    return created(JSON.stringify(pet), pet.id);
  };

  const getPet = (idText: string, ifNoneMatch: string | null | undefined): ReferenceAnswer => {
    if (!/^-?[0-9]{1,20}$/.test(idText)) return animalError(400, 'The pet id must be an integer.');
    const id = Number(idText);
    // Beyond 2^53 a number rounds and would name another animal: within int64 it names none.
    if (!Number.isSafeInteger(id)) {
      const exact = BigInt(idText);
      return exact < -(2n ** 63n) || exact >= 2n ** 63n
        ? animalError(400, 'The pet id must be an integer.')
        : animalError(404, `No animal has the id ${idText}.`);
    }
    const pet = byId.get(id);
    return pet ? animal(JSON.stringify(pet), ifNoneMatch) : animalError(404, `No animal has the id ${idText}.`);
  };

  return {
    /** Answers one request. */
    answer: (request: ReferenceRequest): ReferenceAnswer | Promise<ReferenceAnswer> => {
      const { method, path } = request;
      const refused = refusal(request.authorization);
      if (refused) return refused;
      if (path === `${BASE}/pets`) {
        if (method === 'GET') return listPets(request.query, request.ifNoneMatch);
        if (method === 'POST') return createPet(request);
        return error(405, 'Use GET or POST.', { allow: 'GET, HEAD, POST' });
      }
      if (path.startsWith(`${BASE}/pets/`) && path.indexOf('/', BASE.length + 6) === -1) {
        if (method === 'GET') return getPet(path.slice(BASE.length + 6), request.ifNoneMatch);
        return animalError(405, 'Use GET.', { allow: 'GET, HEAD' });
      }
      return error(404, 'Nothing here.');
    },
    /** The answer to a request that failed unexpectedly. */
    failed: (): ReferenceAnswer => error(500, 'Something went wrong.', undefined, 'internal_error'),
    /** Resolves once no durable write is under way. */
    idle: () => durability.idle(),
  };
};

/** The work, started. */
export type ReferenceWork = ReturnType<typeof createReferenceWork>;
