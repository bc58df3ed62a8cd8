/**
 * @module Runs Node programs (or any command) as child processes, from the repository root
 * unless told otherwise, collects what they print, waits for a line, and kills whatever a
 * failed test left running. The CLI, durability and example tests and the bench all start
 * their processes through this one module.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, where every program is started from. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How a process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process and what it has printed so far. */
export interface NodeProcess {
  child: ChildProcess;
  pid: number;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves once the process has ended and its output is complete. */
  exited: Promise<Exit>;
}

const children = new Set<ChildProcess>();

/** Kills every process started here that is still running, so one failure cannot hang the suite. */
export const killLeftoverProcesses = (): void => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
};

let killingOnExit = false;

/**
 * Kills every process started here that is still running when this process exits, for any
 * reason (a long-running program such as the bench, rather than a test suite's afterEach).
 * Calling it again does nothing more.
 */
export const killLeftoverProcessesOnExit = (): void => {
  if (killingOnExit) return;
  killingOnExit = true;
  process.once('exit', killLeftoverProcesses);
};

/** Where and with what environment a command runs. */
export interface SpawnOptions {
  /** The working directory; the repository root by default. */
  cwd?: string;
  /** Variables added to this process's environment. */
  env?: Record<string, string | undefined>;
}

/** Runs `command …args` (a program other than Node, or Node under `taskset`) and tracks it. */
export const spawnProcess = (command: string, args: string[], { cwd = REPO_ROOT, env = {} }: SpawnOptions = {}): NodeProcess =>
  track(spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));

/** Runs `node …args` in the repository root with `env` added to this process's environment. */
export const spawnNode = (args: string[], env: Record<string, string | undefined> = {}): NodeProcess =>
  spawnProcess(process.execPath, args, { env });

/** Collects the output of a child process started elsewhere (e.g. through npm) and tracks it. */
export const track = (child: ChildProcess): NodeProcess => {
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // 'close', not 'exit': only then has all the output arrived.
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, pid: child.pid!, stdout: () => stdout, stderr: () => stderr, exited };
};

/**
 * Resolves with the first match of `pattern` in the process's stdout (a server's
 * `listening on …` line), or in its stderr when `stream` says so; rejects with its output if
 * it ends first or `timeoutMs` passes.
 */
export const waitForOutput = (
  running: NodeProcess,
  pattern: RegExp,
  timeoutMs = 15_000,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<RegExpMatchArray> =>
  new Promise((resolve, reject) => {
    const output = running.child[stream]!;
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      output.off('data', look);
      settle();
    };
    const look = () => {
      const found = running[stream]().match(pattern);
      if (found) finish(() => resolve(found));
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`No ${pattern} within ${timeoutMs} ms:\n${running.stdout()}\n${running.stderr()}`))),
      timeoutMs,
    );
    output.on('data', look);
    look();
    void running.exited.then(({ code, signal }) =>
      finish(() =>
        reject(
          new Error(
            `The process ended (code ${code}, signal ${signal}) before printing ${pattern}:\n${running.stdout()}\n${running.stderr()}`,
          ),
        ),
      ),
    );
  });
