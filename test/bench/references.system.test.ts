/**
 * @module Proves the bench's two references differ only in their HTTP layer: bare
 * node:http and the @whatwg-node/server floor answer every request with the same status,
 * headers (but the date) and bytes, and leave the same data file behind; and that on every
 * request the bench measures (and its revalidation) they answer byte for byte as our server
 * does, started as the bench starts it, on the file and in memory.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/tempFolder.js';
import { startReference } from './baseline.js';
import { type BenchDataFiles, writeBenchData } from './benchData.js';
import { createCursors } from './referenceAnswers.js';
import { type ContenderId, type RunningServer, type StorageKind, startServer } from './servers.js';
import { BENCH_KEY, type Operation, requestOf, seedOverHttp } from './workloads.js';

type Reference = Awaited<ReturnType<typeof startReference>>;

/** One exchange as it went over the wire: status line, raw headers but Date (and a request id's value), body. */
const exchange = (base: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<string>((resolve, reject) => {
    const sent = request(`${base.replace(/\/v1$/, '')}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          const name = response.rawHeaders[i]!;
          // A request id is a process's random prefix and a counter: compare its shape, not its value.
          if (name.toLowerCase() === 'x-request-id')
            lines.push(`${name}: ${/^[\w-]+-\d+$/.test(response.rawHeaders[i + 1]!) ? 'PREFIX-N' : response.rawHeaders[i + 1]}`);
          else if (name.toLowerCase() !== 'date') lines.push(`${name}: ${response.rawHeaders[i + 1]}`);
        }
        resolve(`${response.statusCode} ${response.statusMessage}\n${lines.join('\n')}\n\n${Buffer.concat(chunks).toString('utf8')}`);
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });

const AUTH = { authorization: `Bearer ${BENCH_KEY}` };
/** A sealed cursor after id 5 for the unfiltered list, as our service makes it with its default secret. */
const CURSOR_AFTER_5 = createCursors().encode(5, undefined);
const JSON_BODY = { ...AUTH, 'content-type': 'application/json' };

/** Requests over every route and every refusal the references share. */
const EXCHANGES: [method: string, path: string, headers: Record<string, string>, body?: string][] = [
  ['GET', '/v1/pets?limit=20', AUTH],
  ['GET', '/v1/pets?limit=100&status=sold', AUTH],
  ['GET', '/v1/pets?limit=5&cursor=40', AUTH],
  ['GET', `/v1/pets?limit=5&cursor=${CURSOR_AFTER_5}`, AUTH],
  ['GET', `/v1/pets?limit=5&status=sold&cursor=${CURSOR_AFTER_5}`, AUTH],
  ['GET', '/v1/pets?limit=5&limit=6', AUTH],
  ['GET', '/v1/pets?colour=red', AUTH],
  ['GET', '/v1/pets/9007199254740993', AUTH],
  ['GET', '/v1/pets/99999999999999999999', AUTH],
  ['GET', '/v1/pets?limit=0', AUTH],
  ['GET', '/v1/pets?status=lost', AUTH],
  ['GET', '/v1/pets/7', AUTH],
  ['GET', '/v1/pets/x', AUTH],
  ['GET', '/v1/pets/99999', AUTH],
  ['GET', '/v1/pets', {}],
  ['GET', '/v1/pets', { authorization: 'Bearer wrong-key' }],
  ['GET', '/elsewhere', AUTH],
  ['DELETE', '/v1/pets/1', AUTH],
  ['PUT', '/v1/pets', AUTH],
  ['POST', '/v1/pets', JSON_BODY, '{"name":"Rex","categoryId":3}'],
  ['POST', '/v1/pets', JSON_BODY, '{"name":"Luna","categoryId":4,"status":"sold"}'],
  ['POST', '/v1/pets', JSON_BODY, '{"name":"Rex","categoryId":3,"colour":"red"}'],
  ['POST', '/v1/pets', JSON_BODY, '{"name":'],
  ['POST', '/v1/pets', JSON_BODY, '{"name":"Rex","categoryId":9007199254740993}'],
  ['POST', '/v1/pets', JSON_BODY, '{"name":"Rex","name":"Max","categoryId":3}'],
  ['POST', '/v1/pets', JSON_BODY, '{"name":"Re\\u0000x","categoryId":3}'],
  ['POST', '/v1/pets', { ...AUTH, 'content-type': 'text/plain' }, '{}'],
  ['POST', '/v1/pets', JSON_BODY, `"${'a'.repeat(70_000)}"`],
  ['POST', '/v1/pets', { ...JSON_BODY, 'transfer-encoding': 'chunked' }, '{"name":"Milo","categoryId":5}'],
];

describe('The bench references (bare node:http and the @whatwg-node/server floor)', () => {
  let bare: Reference;
  let floor: Reference;
  let bareFile: string;
  let floorFile: string;
  const answers: { request: string; fromBare: string; fromFloor: string }[] = [];

  beforeAll(async () => {
    const folder = tempFolder({ until: 'file' });
    const data = await writeBenchData(join(folder, 'data'), 100);
    bareFile = join(folder, 'bare.json');
    floorFile = join(folder, 'floor.json');
    copyFileSync(data.petFile, bareFile);
    copyFileSync(data.petFile, floorFile);
    bare = await startReference({ keys: [BENCH_KEY], dataFile: bareFile, memory: false, libraryFloor: false });
    floor = await startReference({ keys: [BENCH_KEY], dataFile: floorFile, memory: false, libraryFloor: true });
    for (const [method, path, headers, body] of EXCHANGES) {
      answers.push({
        request: `${method} ${path}`,
        fromBare: await exchange(bare.url, method, path, headers, body),
        fromFloor: await exchange(floor.url, method, path, headers, body),
      });
    }
  });

  afterAll(async () => {
    await bare?.stop();
    await floor?.stop();
  });

  it('Should answer every request with the same status, headers and bytes', () => {
    expect(answers).toHaveLength(EXCHANGES.length);
    for (const { request, fromBare, fromFloor } of answers) expect(fromFloor, request).toBe(fromBare);
  });

  it('Should leave the same data file behind after its creates', () => {
    const stored = JSON.parse(readFileSync(floorFile, 'utf8')) as { pets: unknown[] };
    expect(stored.pets).toHaveLength(103);
    expect(readFileSync(floorFile, 'utf8')).toBe(readFileSync(bareFile, 'utf8'));
  });
});

/** The answer to one of the bench's requests, as the bench sends it (a fixed id for getPet). */
const measured = (server: RunningServer, operation: Operation, extra: Record<string, string> = {}) => {
  const { method, path, headers, body, randomIdUpTo } = requestOf(operation, 1);
  return exchange(`${server.origin}/v1`, method, `${path}${randomIdUpTo === undefined ? '' : 7}`, { ...headers, ...extra }, body);
};

/** The value of a header in an exchange's text. */
const headerOf = (answer: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(answer)?.[1];

describe('The bench references beside our server, on the requests the bench measures', () => {
  const CONTENDERS: ContenderId[] = ['ours', 'baseline', 'floor'];
  const ANIMALS = 400;
  const answers = new Map<ContenderId, Map<string, string>>(CONTENDERS.map((id) => [id, new Map()]));
  let folder: string;
  let data: BenchDataFiles;
  let starts = 0;

  /** Starts each contender on a storage as the bench does, and records its answers to `ask`. */
  const onEach = async (
    storage: StorageKind,
    ask: (server: RunningServer, record: (name: string, answer: string) => void) => Promise<void>,
  ) => {
    for (const contender of CONTENDERS) {
      const server = await startServer(contender, {
        data,
        storage,
        workDir: join(folder, `start-${++starts}`),
        pinning: { applied: false, note: '' },
      });
      try {
        if (contender === 'ours' && storage === 'memory') await seedOverHttp(server.origin, ANIMALS, 10);
        await ask(server, (name, answer) => answers.get(contender)!.set(name, answer));
      } finally {
        await server.stop();
      }
    }
  };

  beforeAll(async () => {
    folder = tempFolder({ until: 'file' });
    data = await writeBenchData(join(folder, 'data'), ANIMALS);
    await onEach('file', async (server, record) => {
      for (const operation of ['list20', 'list100sold', 'getById'] as const) {
        const answer = await measured(server, operation);
        record(operation, answer);
        record(`${operation} revalidated`, await measured(server, operation, { 'if-none-match': headerOf(answer, 'etag') ?? '' }));
      }
      const next = /^<([^>]*)>; rel="next"$/.exec(headerOf(answers.get('ours')!.get('list20') ?? '', 'link') ?? '')?.[1] ?? '/v1/none';
      record('the next page of list20', await exchange(`${server.origin}/v1`, 'GET', next, AUTH));
      record('createDurable', await measured(server, 'createDurable'));
    });
    await onEach('memory', async (server, record) => record('createMemory', await measured(server, 'createMemory')));
  }, 120_000);

  it('Should answer each measured request with the same status, headers and bytes as our server', () => {
    const ours = answers.get('ours')!;
    expect([...ours.keys()]).toHaveLength(9);
    expect(headerOf(ours.get('list20')!, 'link')).toMatch(/rel="next"/);
    expect(headerOf(ours.get('list100sold')!, 'link')).toMatch(/status=sold/);
    expect(ours.get('list20 revalidated')).toMatch(/^304 /);
    expect(ours.get('the next page of list20')).toMatch(/^200 [\s\S]*\[\{"id":21,/);
    expect(ours.get('createDurable')).toMatch(/^201 /);
    for (const reference of ['baseline', 'floor'] as const) {
      for (const [name, answer] of ours) expect(answers.get(reference)!.get(name), `${reference}: ${name}`).toBe(answer);
    }
  });
});
