/**
 * @module Runs the programs in examples/ as a reader would, from their TypeScript source:
 * `node --conditions=animal-store-source --import tsx examples/…`, so that their
 * `animal-store/…` imports resolve to this repository's source through the package's
 * self-reference.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, where every example path is resolved from. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How Node runs an example from source. */
export const EXAMPLE_NODE_ARGS = ['--conditions=animal-store-source', '--import', 'tsx'];

/** What a finished example left behind. */
export interface FinishedExample {
  /** The exit code, or `null` when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** An example that is still running, such as a server. */
export interface RunningExample {
  /** The match of the `ready` pattern in its standard output. */
  ready: RegExpMatchArray;
  /** Its standard output so far. */
  stdout(): string;
  /** Asks it to stop with SIGTERM, as Ctrl-C or a process manager would, and waits for it. */
  stop(): Promise<FinishedExample>;
}

/** Where and how to run an example. */
export interface ExampleOptions {
  /** Arguments after the program's path. */
  args?: string[];
  /** Variables added to this process's environment. */
  env?: Record<string, string>;
}

const children = new Set<ChildProcess>();

/** Kills any example a failed test left running, so one failure cannot hang the suite. */
export const killLeftoverExamples = (): void => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
};

/** Starts `node` with these arguments in the repository root. */
const launch = (nodeArgs: string[], { env = {} }: ExampleOptions) => {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const finished = new Promise<FinishedExample>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, finished, stdout: () => stdout };
};

/** Runs an example to its end and collects its output. */
export const runExample = (path: string, options: ExampleOptions = {}): Promise<FinishedExample> =>
  launch([...EXAMPLE_NODE_ARGS, path, ...(options.args ?? [])], options).finished;

/** Runs a Node program given by its path (and `args`) to its end, without tsx; for tools such as vitest. */
export const runNodeProgram = (path: string, options: ExampleOptions = {}): Promise<FinishedExample> =>
  launch([path, ...(options.args ?? [])], options).finished;

/**
 * Starts an example and resolves once its standard output matches `ready` (a server's
 * "listening on …" line). Rejects with its output if it ends before that.
 */
export const startExample = async (
  path: string,
  ready: RegExp,
  options: ExampleOptions = {},
): Promise<RunningExample> => {
  const { child, finished, stdout } = launch([...EXAMPLE_NODE_ARGS, path, ...(options.args ?? [])], options);
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const look = () => {
      const found = stdout().match(ready);
      if (found) {
        child.stdout!.off('data', look);
        resolve(found);
      }
    };
    child.stdout!.on('data', look);
    void finished.then((result) =>
      reject(new Error(`${path} ended (code ${result.code}) before printing ${ready}:\n${result.stdout}\n${result.stderr}`)),
    );
  });
  return {
    ready: match,
    stdout,
    stop: () => {
      child.kill('SIGTERM');
      return finished;
    },
  };
};
