/**
 * @module Clients generated from the served OpenAPI document by the two generators users reach
 * for, each with its default settings: openapi-typescript 7 (+ openapi-fetch) and
 * @hey-api/openapi-ts. A user's program over each (fixture/generatedClients) type-checks with
 * tsc, then creates without `status`, lists, gets, is refused a bad create and replays an
 * Idempotency-Key, against a real server.
 */
import { execFile } from 'node:child_process';
import { cp, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnimalStoreServer, createMemoryStorage, serve } from '../../adapters/node.js';
import { tempFolder } from '../support/tempFolder.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixture/generatedClients', import.meta.url));
const KEY = 'generated-clients-key-0001';

let server: AnimalStoreServer;
let project: string;

/** Runs a Node program in the project; rejects with what it printed when it fails. */
const node = async (args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> => {
  try {
    const { stdout } = await run(process.execPath, args, { cwd: project, env: { ...process.env, ...env }, timeout: 90_000 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`node ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
};

/** A package's file in the repository's node_modules. */
const installed = (file: string) => join(repo, 'node_modules', file);

beforeAll(async () => {
  server = await serve({ storage: createMemoryStorage(), keys: [KEY], port: 0, logger: { warn: () => {} } });
  project = tempFolder({ until: 'file' });
  await cp(fixture, project, { recursive: true });
  // The generated code and the programs import openapi-fetch, tsx and Node's types as a user's project would.
  await symlink(join(repo, 'node_modules'), join(project, 'node_modules'), 'dir');
  const document = `${server.url}/openapi.json`;
  await Promise.all([
    node([installed('openapi-typescript/bin/cli.js'), document, '--output', 'generated/openapi-typescript/schema.ts']),
    node([installed('@hey-api/openapi-ts/bin/run.js'), '--input', document, '--output', 'generated/hey-api']),
  ]);
}, 120_000);

afterAll(() => server?.close());

describe('clients generated from the served OpenAPI document', () => {
  it('type-check a create without status, and an animal whose status is always there', async () => {
    await expect(node([installed('typescript/bin/tsc'), '-p', 'tsconfig.json'])).resolves.toBe('');
  }, 90_000);

  it.each([
    ['openapi-typescript + openapi-fetch', 'openapiFetch.ts'],
    ['@hey-api/openapi-ts', 'heyApi.ts'],
  ])(
    '%s: create, list, get, a 400 and a replayed Idempotency-Key go through with the answers the interface promises',
    async (_name, program) => {
      const printed = await node(['--import', 'tsx', program], { ANIMAL_STORE_URL: server.url, ANIMAL_STORE_KEY: KEY });
      const { created, listed, fetched, refused, replayed } = JSON.parse(printed);
      expect(created.status).toBe(201);
      expect(created.pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'available' });
      expect(created.petStatus).toBe('available');
      expect(listed.status).toBe(200);
      expect(listed.pets).toContainEqual(created.pet);
      expect(fetched).toEqual({ status: 200, pet: created.pet });
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ code: 'validation_failed', status: 400, details: [{ path: 'categoryId' }] });
      expect(replayed.again).toEqual(replayed.first);
      expect(replayed.header).toBe('true');
    },
  );
});
