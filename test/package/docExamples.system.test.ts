/**
 * @module Every runnable example of the documentation, run as written against the packed
 * package, as a user would run it.
 *
 * Which blocks: every fenced block in README.md and docs/**\/*.md whose info string holds
 * the word `runnable` (```` ```ts runnable ````, `js runnable`, `sh runnable`), read from the
 * Markdown when the test runs, never copied. `npm pack` makes the tarball once; a temp
 * project (`"type": "module"`) installs it with tsx, and the optional peers express, pg and prom-client; each block is written to
 * a fresh folder inside that project and run there: `ts` with `node --import tsx`, `js` with
 * node, `sh` with `bash -e` (the project's node_modules/.bin on PATH, so `npx animal-store`
 * is the installed package). A block that mentions DATABASE_URL gets one: a fresh database
 * on a throwaway PostgreSQL server.
 *
 * The convention a block must keep (also in docs/contributing.md):
 * - A block that ends by itself must end with exit code 0 within 60 s.
 * - A block that serves prints `listening on URL` (the CLI does; a program prints it once
 *   `serve()` resolves) within 60 s. A second later the harness stops it with SIGTERM to its
 *   whole process group (SIGKILL 5 s later). It must not print `Error` on stderr meanwhile.
 * - A block runs alone in an empty folder: it makes what it needs (a key file, a seed file).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackedProject } from '../support/packedProject.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgresCluster.js';
import { findRunnableBlocks } from './findRunnableBlocks.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const blocks = findRunnableBlocks(repo);

/** How long a block may take to end or to listen, and how long a listening one is left running. */
const END_WITHIN_MS = 60_000;
const SERVE_FOR_MS = 1_000;
const LISTENING = /listening on \S+/;

/** How each language's file is named and run. */
const RUNNERS: Record<string, { file: string; command: (file: string) => [string, string[]] }> = {
  ts: { file: 'main.ts', command: (file) => [process.execPath, ['--import', 'tsx', file]] },
  js: { file: 'main.mjs', command: (file) => [process.execPath, [file]] },
  sh: { file: 'main.sh', command: (file) => ['bash', ['-e', file]] },
};

let project: string;
let cluster: PostgresCluster | undefined;
let databases = 0;

/** A fresh, empty database on the throwaway server, started the first time one is needed. */
const freshDatabase = async (): Promise<string> => {
  cluster ??= await startPostgresCluster();
  const name = `doc_example_${++databases}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.href;
};

/** Runs a block's file; resolves with how it ended, and what it printed. */
const runBlock = (folder: string, language: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ ending: 'exited' | 'served'; code: number | null; output: string; stderr: string }>((resolve, reject) => {
    const runner = RUNNERS[language]!;
    const [command, args] = runner.command(runner.file);
    // A process group of its own, so the harness can stop a server and everything it started.
    const child: ChildProcess = spawn(command, args, { cwd: folder, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stderr = '';
    let ending: 'exited' | 'served' = 'exited';
    let serving: NodeJS.Timeout | undefined;
    const stopGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {}
    };
    const look = () => {
      if (serving !== undefined || !LISTENING.test(output)) return;
      serving = setTimeout(() => {
        ending = 'served';
        stopGroup('SIGTERM');
        setTimeout(() => stopGroup('SIGKILL'), 5_000).unref();
      }, SERVE_FOR_MS);
    };
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      look();
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      stderr += chunk;
      look();
    });
    const tooLong = setTimeout(() => stopGroup('SIGKILL'), END_WITHIN_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(serving);
      clearTimeout(tooLong);
      // Whatever the block left behind in its group goes too.
      stopGroup('SIGKILL');
      resolve({ ending, code, output, stderr });
    });
  });

beforeAll(async () => {
  project = await createPackedProject('doc-examples', ['tsx@^4', 'express@^5', 'pg@^8', 'prom-client@^15']);
}, 240_000);

afterAll(async () => {
  await cluster?.destroy();
}, 30_000);

describe('the runnable examples of README.md and docs/', () => {
  it('holds some: at least the quick start', () => {
    expect(blocks.map((block) => block.where)).toContainEqual(expect.stringMatching(/^README\.md:/));
  });

  for (const [index, block] of blocks.entries()) {
    it(
      `runs ${block.where} (${block.language}) as written`,
      async () => {
        expect(Object.keys(RUNNERS), `${block.where}: the language of a runnable block`).toContain(block.language);
        const folder = join(project, 'blocks', String(index));
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, RUNNERS[block.language]!.file), block.code);
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          PATH: `${join(project, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
          // The machine's own settings must not change what an example does.
          ANIMAL_STORE_API_KEYS: '',
          PORT: '',
          DATABASE_URL: /DATABASE_URL/.test(block.code) ? await freshDatabase() : '',
        };
        const { ending, code, output, stderr } = await runBlock(folder, block.language, env);
        if (ending === 'exited') expect(code, `${block.where} ended with exit code ${code}:\n${output}`).toBe(0);
        else expect(stderr, `${block.where} printed an error while serving:\n${output}`).not.toMatch(/Error/);
      },
      END_WITHIN_MS + 30_000,
    );
  }
});
