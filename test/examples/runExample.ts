/**
 * @module Runs the programs in examples/ as a reader would, from their TypeScript source:
 * `node --conditions=animal-store-source --import tsx examples/…`, so that their
 * `animal-store/…` imports resolve to this repository's source through the package's
 * self-reference.
 */
import { killLeftoverProcesses, type NodeProcess, spawnNode, waitForOutput } from '../support/nodeProcess.js';

export { REPO_ROOT } from '../support/nodeProcess.js';

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

/** Kills any example a failed test left running, so one failure cannot hang the suite. */
export const killLeftoverExamples = killLeftoverProcesses;

/** Resolves, once the process has ended, with how it ended and everything it printed. */
const finished = async (running: NodeProcess): Promise<FinishedExample> => ({
  ...(await running.exited),
  stdout: running.stdout(),
  stderr: running.stderr(),
});

/** Runs an example to its end and collects its output. */
export const runExample = (path: string, options: ExampleOptions = {}): Promise<FinishedExample> =>
  finished(spawnNode([...EXAMPLE_NODE_ARGS, path, ...(options.args ?? [])], options.env));

/** Runs a Node program given by its path (and `args`) to its end, without tsx; for tools such as vitest. */
export const runNodeProgram = (path: string, options: ExampleOptions = {}): Promise<FinishedExample> =>
  finished(spawnNode([path, ...(options.args ?? [])], options.env));

/**
 * Starts an example and resolves once its standard output matches `ready` (a server's
 * "listening on …" line). Rejects with its output if it ends before that.
 */
export const startExample = async (path: string, ready: RegExp, options: ExampleOptions = {}): Promise<RunningExample> => {
  const running = spawnNode([...EXAMPLE_NODE_ARGS, path, ...(options.args ?? [])], options.env);
  const match = await waitForOutput(running, ready);
  return {
    ready: match,
    stdout: running.stdout,
    stop: () => {
      running.child.kill('SIGTERM');
      return finished(running);
    },
  };
};
