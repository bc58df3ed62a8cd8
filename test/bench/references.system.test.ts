/**
 * @module Proves the bench's two references differ only in their HTTP layer: bare
 * node:http and the @whatwg-node/server floor answer every request with the same status,
 * headers (but the date) and bytes, and leave the same data file behind.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/tempFolder.js';
import { startReference } from './baseline.js';
import { writeBenchData } from './benchData.js';
import { BENCH_KEY } from './workloads.js';

type Reference = Awaited<ReturnType<typeof startReference>>;

/** One exchange as it went over the wire: status line, raw headers but Date, body. */
const exchange = (base: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<string>((resolve, reject) => {
    const sent = request(`${base.replace(/\/v1$/, '')}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          if (response.rawHeaders[i]!.toLowerCase() !== 'date') lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
        }
        resolve(`${response.statusCode} ${response.statusMessage}\n${lines.join('\n')}\n\n${Buffer.concat(chunks).toString('utf8')}`);
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });

const AUTH = { authorization: `Bearer ${BENCH_KEY}` };
const JSON_BODY = { ...AUTH, 'content-type': 'application/json' };

/** Requests over every route and every refusal the references share. */
const EXCHANGES: [method: string, path: string, headers: Record<string, string>, body?: string][] = [
  ['GET', '/v1/pets?limit=20', AUTH],
  ['GET', '/v1/pets?limit=100&status=sold', AUTH],
  ['GET', '/v1/pets?limit=5&cursor=40', AUTH],
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
