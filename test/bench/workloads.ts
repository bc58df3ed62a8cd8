/**
 * @module The measured operations: the request each sends, the figures a load of it gives,
 * the check that a server answers it correctly, and seeding a server that starts empty.
 */
import autocannon from 'autocannon';
import type { CpuFigures } from './cpuSampling.js';

/** The API key every contender is started with (json-server ignores it). */
export const BENCH_KEY = 'bench-key-4f1c9a';

/**
 * The operations the benchmark measures. `list20` and `list100sold` ask for the same page
 * again and again; `walk20` and `walk100sold` for different pages, following each page's
 * Link (no page cache helps); `mixed` is the walk of `walk20` with one create in
 * `MIXED_CREATE_EVERY`; `createGrown` creates on a file that the server itself grew from
 * empty through concurrent creates, as a user's file grows.
 */
export type Operation =
  | 'list20'
  | 'walk20'
  | 'list100sold'
  | 'walk100sold'
  | 'getById'
  | 'mixed'
  | 'createMemory'
  | 'createDurable'
  | 'createGrown';

/** How each operation reads in the table and chart. */
export const OPERATION_LABELS: Record<Operation, string> = {
  list20: 'GET /v1/pets?limit=20',
  walk20: 'page walk: ?limit=20, pages followed by Link',
  list100sold: 'GET /v1/pets?limit=100&status=sold',
  walk100sold: '?limit=100&status=sold, pages followed by Link',
  getById: 'GET /v1/pets/{id}',
  mixed: 'mixed: page walk, one create in ten',
  createMemory: 'POST /v1/pets (memory)',
  createDurable: 'POST /v1/pets (durable file)',
  createGrown: 'POST /v1/pets (durable file grown by creates)',
};

/** The most pages a walk visits before it starts again: more than a page cache keeps. */
export const WALK_PAGES = 500;

/**
 * The paths of a walk of pages from `first`, following each page's Link as a client does,
 * `WALK_PAGES` at most. `ask` answers one path (each service seals its own cursors, so a walk
 * is made on the service that will be measured).
 */
export const walkPaths = async (ask: (path: string) => Promise<Response>, first: string): Promise<string[]> => {
  const paths = [first];
  for (;;) {
    const link = (await ask(paths.at(-1)!)).headers.get('link');
    const target = link === null ? undefined : /^<([^>]*)>/.exec(link)?.[1];
    if (target === undefined || paths.length >= WALK_PAGES) return paths;
    paths.push(target);
  }
};

/** In the mixed load, every this-many-th request is a create. */
export const MIXED_CREATE_EVERY = 10;
/**
 * `createGrown`'s load, as issue 21's procedure runs it: the file seeded through 50
 * concurrent creates, then loaded for this long with no warm-up (a warm-up would grow it more).
 */
export const GROWN_LOAD_SECONDS = 4;

/** One load's figures: throughput, latency in milliseconds, failures, and CPU use. */
export interface LoadFigures extends CpuFigures {
  /**
   * Microseconds of server CPU per successful response: what a request costs the server,
   * whatever share of its core it got (other programs on the machine take some).
   */
  serverUsPerRequest?: number;
  /** Successful responses per second over the measured time (wrk: every response below 400). */
  requestsPerSecond: number;
  p50: number;
  p90?: number;
  p99: number;
  /** Responses that were not successful, connection errors and timeouts: all should be 0. */
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Server CPU per successful response, in microseconds, from its share of a core and its throughput. */
export const usPerRequest = (serverCpu: number | undefined, requestsPerSecond: number): number | undefined =>
  serverCpu === undefined || !(requestsPerSecond > 0) ? undefined : (serverCpu / 100 / requestsPerSecond) * 1e6;

/** How hard and how long to load. */
export interface LoadSettings {
  connections: number;
  seconds: number;
}

/** The request an operation sends: every generator sends this, and `checkAnswer` checks it. */
export interface OperationRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** getPet: a random id from 1 to this is appended to `path` for each request, so no cache line or branch gets lucky. */
  randomIdUpTo?: number;
  /** A walk: the pages from `path` on are found by following their Link (`walkOf`) and asked for round and round. */
  walk?: boolean;
  /** The mixed load: every this-many-th request is `CREATE` instead. */
  createEvery?: number;
  /** A keyed create: each request carries an Idempotency-Key no request sent before (wrk only). */
  keyed?: boolean;
}

/** The request a load sends: an operation's, its walk found. */
export interface LoadRequest extends OperationRequest {
  /** The paths of the walk, in order, when the operation walks. */
  paths?: string[];
}

/** The create every POST operation sends, and the mixed load now and then. */
export const CREATE = {
  path: '/v1/pets',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Bench Rex', categoryId: 7 }),
} as const;

const AUTH = { authorization: `Bearer ${BENCH_KEY}` };

/** The request of an operation against a catalogue of `animals`. */
export const requestOf = (operation: Operation, animals: number): OperationRequest => {
  switch (operation) {
    case 'list20':
      return { method: 'GET', path: '/v1/pets?limit=20', headers: AUTH };
    case 'walk20':
      return { method: 'GET', path: '/v1/pets?limit=20', headers: AUTH, walk: true };
    case 'list100sold':
      return { method: 'GET', path: '/v1/pets?limit=100&status=sold', headers: AUTH };
    case 'walk100sold':
      return { method: 'GET', path: '/v1/pets?limit=100&status=sold', headers: AUTH, walk: true };
    case 'getById':
      return { method: 'GET', path: '/v1/pets/', headers: AUTH, randomIdUpTo: animals };
    case 'mixed':
      return { method: 'GET', path: '/v1/pets?limit=20', headers: AUTH, walk: true, createEvery: MIXED_CREATE_EVERY };
    case 'createMemory':
    case 'createDurable':
    case 'createGrown':
      return { method: 'POST', path: CREATE.path, headers: { ...AUTH, ...CREATE.headers }, body: CREATE.body };
  }
};

/**
 * The paths of a walk of at most `WALK_PAGES` pages from `first`, following each page's
 * Link as a client does; each server seals its own cursors, so each is walked before its load.
 */
export const walkOf = async (origin: string, first: string): Promise<string[]> => {
  const paths = [first];
  for (;;) {
    const response = await fetch(`${origin}${paths.at(-1)}`, { headers: AUTH });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${paths.at(-1)} answered ${response.status} during the walk`);
    const target = /^<([^>]*)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    if (target === undefined || paths.length >= WALK_PAGES) return paths;
    const url = new URL(target, `${origin}${paths.at(-1)}`);
    paths.push(`${url.pathname}${url.search}`);
  }
};

/** The request of an operation against a server, its walk found when it walks. */
export const loadRequestOf = async (origin: string, operation: Operation, animals: number): Promise<LoadRequest> => {
  const request = requestOf(operation, animals);
  return request.walk ? { ...request, paths: await walkOf(origin, request.path) } : request;
};

/**
 * Resolves once the server answers a cheap request, or after 20 s: requests still queued in
 * a server when a load stops would be served during the next one, and json-server at a
 * million animals can be minutes behind (its figures are near zero whether or not it caught up).
 */
export const settle = async (origin: string): Promise<void> => {
  const response = await fetch(`${origin}/v1/pets/1`, { headers: AUTH, signal: AbortSignal.timeout(20_000) }).catch(() => undefined);
  await response?.arrayBuffer();
};

/** What a correct answer looks like, checked once before each load so no contender is timed on errors. */
export const checkAnswer = async (origin: string, operation: Operation): Promise<void> => {
  const { method, path, headers, body, randomIdUpTo } = requestOf(operation, 1);
  const url = `${origin}${path}${randomIdUpTo === undefined ? '' : randomIdUpTo}`;
  const response = await fetch(url, { method, headers, body: body ?? null });
  const text = await response.text();
  const fail = (why: string) => {
    throw new Error(`${method} ${url} answered ${response.status} ${text.slice(0, 200)}: ${why}`);
  };
  const expected = method === 'POST' ? 201 : 200;
  if (response.status !== expected) fail(`expected ${expected}`);
  const parsed = JSON.parse(text) as unknown;
  if (path.includes('limit=20') && (!Array.isArray(parsed) || parsed.length !== 20)) fail('expected 20 animals');
  if (path.includes('status=sold') && (!Array.isArray(parsed) || parsed.length !== 100 || parsed.some((pet) => pet.status !== 'sold'))) {
    fail('expected 100 sold animals');
  }
  if ((operation === 'getById' || method === 'POST') && (typeof parsed !== 'object' || parsed === null || !('id' in parsed))) {
    fail('expected an animal');
  }
};

/**
 * Adds `count` animals over HTTP, as fast as the server takes them, with statuses cycling
 * through available, pending and sold: how our `--memory` server, which starts empty, gets
 * the same size of catalogue as the others. Not measured, so autocannon in this process does.
 */
export const seedOverHttp = async (origin: string, count: number, connections: number): Promise<void> => {
  const headers = { ...AUTH, 'content-type': 'application/json' };
  const result = await autocannon({
    url: origin,
    connections: Math.min(connections, count),
    amount: count,
    timeout: 30,
    requests: (['available', 'pending', 'sold'] as const).map((status) => ({
      method: 'POST' as const,
      path: '/v1/pets',
      headers,
      body: JSON.stringify({ name: 'Seeded Luna', categoryId: 3, status }),
    })),
  });
  if (result['2xx'] !== count)
    throw new Error(`seeding stored ${result['2xx']} of ${count} animals (${result.non2xx} non-2xx, ${result.errors} errors)`);
};
