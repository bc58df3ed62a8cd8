/**
 * @module The examples as a user runs them: copied out of the installed package
 * (node_modules/animal-store/examples/…) into a new project that installed the packed package
 * and the tools each example's README names, and run there with `node --import tsx`. Servers
 * answer, then stop on SIGTERM and leave no process behind. (test/examples/*.system.test.ts
 * check what each example does, run from this repository's sources.)
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackedProject } from '../support/packedProject.js';

let project: string;

beforeAll(async () => {
  // What the examples' READMEs say to install beside animal-store.
  project = await createPackedProject('packed-examples', ['tsx@^4', 'esbuild@0.28.2', 'express@^5']);
}, 240_000);

const started = new Set<ChildProcess>();
afterAll(() => {
  for (const child of started) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }
});

const run = promisify(execFile);

/**
 * The processes of the group led by `pid` still running a few seconds after it ended ('' when
 * none): tsx's esbuild service, a child of the program, ends as its parent's pipe closes.
 */
const leftInGroup = async (pid: number): Promise<string> => {
  for (let waited = 0; waited < 5_000; waited += 100) {
    const { stdout } = await run('ps', ['-eo', 'pid=,pgid=,args=']);
    const left = stdout
      .split('\n')
      .filter((line) => line.trim().split(/\s+/)[1] === String(pid))
      .join('\n');
    if (left === '') return '';
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { stdout } = await run('ps', ['-eo', 'pid=,pgid=,args=']);
  return stdout
    .split('\n')
    .filter((line) => line.trim().split(/\s+/)[1] === String(pid))
    .join('\n');
};

/** Copies an example out of the installed package into the project, as a user copies it. */
const copyExample = (name: string): string => {
  const folder = join(project, name);
  cpSync(join(project, 'node_modules', 'animal-store', 'examples', name), folder, { recursive: true });
  return folder;
};

/** Runs `node --import tsx FILE` in an example's folder, in a process group of its own. */
const runExample = (name: string, file: string, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: copyExample(name),
    env: { ...process.env, ANIMAL_STORE_API_KEYS: '', PORT: '', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  /** Resolves with the first match of `pattern` in the output, or rejects with the output once the process ends without it. */
  const waitFor = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (let ended = false; ; ) {
      const match = pattern.exec(output);
      if (match) return match;
      if (ended) throw new Error(`${name} ended without ${pattern}:\n${output}`);
      ended = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 100))]);
    }
  };
  return { child, exited, waitFor, output: () => output };
};

describe('the examples, copied from the installed package', () => {
  it.each([
    ['in-process', /import row 17 is #\d+ both times: true/],
    ['fetch-runtime', /without a key: 401 unauthorized/],
    ['standalone', /listening on http:\/\/127\.0\.0\.1:\d+\/v1/],
  ])(
    '%s runs to its end',
    async (name, printed) => {
      const example = runExample(name, 'main.ts');
      const code = await example.exited;
      expect(code, example.output()).toBe(0);
      expect(example.output()).toMatch(printed);
      expect(await leftInGroup(example.child.pid!)).toBe('');
    },
    90_000,
  );

  it('express serves, then stops on SIGTERM with nothing left running', async () => {
    const example = runExample('express', 'main.ts', { PORT: '0', CATALOGUE_API_KEY: 'express-packed-key-0001' });
    const [, origin] = await example.waitFor(/listening on (http:\/\/\S+)/);
    const listed = await fetch(`${origin}/catalogue/v1/pets`, { headers: { authorization: 'Bearer express-packed-key-0001' } });
    expect(listed.status).toBe(200);
    example.child.kill('SIGTERM');
    await example.exited;
    expect(await leftInGroup(example.child.pid!)).toBe('');
  }, 90_000);

  it('kiosk bundles the installed client, serves the page, then stops on SIGTERM with nothing left running', async () => {
    const example = runExample('kiosk', 'server.ts', { KIOSK_PORT: '0', API_PORT: '0', KIOSK_API_KEY: 'kiosk-packed-key-0001' });
    const [, pageUrl, apiBase] = await example.waitFor(/kiosk on (http:\/\/\S+\/) using the API at (\S+)/);
    const client = await fetch(`${pageUrl}animal-store-client.js`);
    expect(client.status).toBe(200);
    expect(await client.text()).toMatch(/export\s*\{[^}]*\bcreateClient\b/);
    expect((await fetch(`${apiBase}/pets`, { headers: { authorization: 'Bearer kiosk-packed-key-0001' } })).status).toBe(200);
    example.child.kill('SIGTERM');
    expect(await example.exited).toBe(0);
    expect(await leftInGroup(example.child.pid!)).toBe('');
    expect(example.output()).not.toMatch(/Error/);
  }, 90_000);
});
