/** @module The measured operations, and loading a server with one of them through autocannon. */
import autocannon from 'autocannon';
import { BENCH_KEY } from './servers.js';

/** The operations the benchmark measures. */
export type Operation = 'list20' | 'list100sold' | 'getById' | 'createMemory' | 'createDurable';

/** How each operation reads in the table and chart. */
export const OPERATION_LABELS: Record<Operation, string> = {
  list20: 'GET /v1/pets?limit=20',
  list100sold: 'GET /v1/pets?limit=100&status=sold',
  getById: 'GET /v1/pets/{id}',
  createMemory: 'POST /v1/pets (memory)',
  createDurable: 'POST /v1/pets (durable file)',
};

/** One load's figures. Latencies in milliseconds. */
export interface LoadFigures {
  /** Successful (2xx) responses per second over the measured time. */
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses that were not 2xx, connection errors and timeouts: all should be 0. */
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** How hard and how long to load. */
export interface LoadSettings {
  connections: number;
  seconds: number;
}

const AUTH = { authorization: `Bearer ${BENCH_KEY}` };

/** The autocannon request of an operation, against a catalogue of `animals`. */
const requestOf = (operation: Operation, animals: number): autocannon.Request => {
  switch (operation) {
    case 'list20':
      return { method: 'GET', path: '/v1/pets?limit=20', headers: AUTH };
    case 'list100sold':
      return { method: 'GET', path: '/v1/pets?limit=100&status=sold', headers: AUTH };
    case 'getById':
      return {
        method: 'GET',
        path: '/v1/pets/1',
        headers: AUTH,
        // A random existing animal per request, so no cache line or branch gets lucky.
        setupRequest: (request) => ({ ...request, path: `/v1/pets/${1 + Math.floor(Math.random() * animals)}` }),
      };
    case 'createMemory':
    case 'createDurable':
      return {
        method: 'POST',
        path: '/v1/pets',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench Rex', categoryId: 7 }),
      };
  }
};

/**
 * Resolves once the server answers a cheap request, or after 20 s: json-server at a million
 * animals can be minutes behind, and its figures are near zero whether or not it caught up.
 */
const settle = async (origin: string) => {
  const response = await fetch(`${origin}/v1/pets/1`, { headers: AUTH, signal: AbortSignal.timeout(20_000) }).catch(() => undefined);
  await response?.arrayBuffer();
};

/** Loads `origin` with one operation for a fixed time and returns the figures. */
export const runLoad = async (origin: string, operation: Operation, animals: number, settings: LoadSettings): Promise<LoadFigures> => {
  const result = await autocannon({
    url: origin,
    connections: settings.connections,
    duration: settings.seconds,
    requests: [requestOf(operation, animals)],
    // Never give up early; a slow contender is measured, not skipped.
    timeout: 30,
    // autocannon only stops on a sample tick: tick often so short runs last what they say.
    sampleInt: 100,
  });
  // Requests still queued in the server when autocannon stops would be served during the next
  // load: wait until the server has caught up (a slow contender may be seconds behind).
  await settle(origin);
  const answered = result['2xx'] + result.non2xx > 0;
  return {
    requestsPerSecond: result['2xx'] / Math.max(result.duration, 0.001),
    p50: answered ? result.latency.p50 : NaN,
    p99: answered ? result.latency.p99 : NaN,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
};

/** What a correct answer looks like, checked once before each load so no contender is timed on errors. */
export const checkAnswer = async (origin: string, operation: Operation): Promise<void> => {
  const { method, path, headers, body } = requestOf(operation, 1);
  const response = await fetch(`${origin}${path}`, {
    method: method ?? 'GET',
    headers: headers as Record<string, string>,
    body: typeof body === 'string' ? body : null,
  });
  const text = await response.text();
  const fail = (why: string) => {
    throw new Error(`${method} ${path} answered ${response.status} ${text.slice(0, 200)}: ${why}`);
  };
  const expected = operation.startsWith('create') ? 201 : 200;
  if (response.status !== expected) fail(`expected ${expected}`);
  const parsed = JSON.parse(text) as unknown;
  if (operation === 'list20' && (!Array.isArray(parsed) || parsed.length !== 20)) fail('expected 20 animals');
  if (operation === 'list100sold' && (!Array.isArray(parsed) || parsed.length !== 100 || parsed.some((pet) => pet.status !== 'sold'))) {
    fail('expected 100 sold animals');
  }
  if ((operation === 'getById' || operation.startsWith('create')) && (typeof parsed !== 'object' || parsed === null || !('id' in parsed))) {
    fail('expected an animal');
  }
};

/**
 * Adds `count` animals over HTTP, as fast as the server takes them, with statuses cycling
 * through available, pending and sold: how our `--memory` server, which starts empty, gets
 * the same size of catalogue as the others.
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
