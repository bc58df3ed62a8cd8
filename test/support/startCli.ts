/** @module Starts the real `animal-store` CLI (`adapters/cli.ts`, from source) and waits until it listens. */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type NodeProcess, REPO_ROOT, spawnProcess, waitForOutput } from './nodeProcess.js';

export { type Exit, killLeftoverProcesses, type NodeProcess, REPO_ROOT } from './nodeProcess.js';

/** How to start the CLI beyond its arguments. */
export interface CliOptions {
  /**
   * Variables added to the environment; `ANIMAL_STORE_API_KEYS`, `PORT`, `DATABASE_URL` and
   * `ANIMAL_STORE_CURSOR_SECRET` start out empty, so the machine's own never leak into a test.
   */
  env?: Record<string, string | undefined>;
  /** Modules loaded before the CLI (`--import`), such as a test-only fs shim. */
  preload?: string[];
  /** The working directory (where `./data/animals.json` is); the repository root by default. */
  cwd?: string;
}

/** tsx's loader, by absolute URL: `--import tsx` would be looked up from the working directory. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Runs `node --import tsx adapters/cli.ts …args`; does not wait for anything. */
export const runCli = (args: string[], { env = {}, preload = [], cwd = REPO_ROOT }: CliOptions = {}): NodeProcess =>
  spawnProcess(
    process.execPath,
    ['--import', TSX, ...preload.flatMap((module) => ['--import', module]), join(REPO_ROOT, 'adapters/cli.ts'), ...args],
    {
      cwd,
      env: {
        ANIMAL_STORE_API_KEYS: '',
        PORT: '',
        DATABASE_URL: '',
        ANIMAL_STORE_CURSOR_SECRET: '',
        ...env,
      },
    },
  );

/** The `listening on URL` line the CLI prints once it serves. */
export const LISTENING = /listening on (http:\/\/\S+)/;

/** Waits for a CLI (or anything printing the same line) to listen; resolves with its base URL. */
export const waitForListening = async (cli: NodeProcess): Promise<string> => (await waitForOutput(cli, LISTENING))[1]!;

/** Starts the CLI and resolves, with its base URL, once it listens. */
export const startCli = async (args: string[], options?: CliOptions) => {
  const cli = runCli(args, options);
  return { ...cli, url: await waitForListening(cli) };
};
