/** @module Starts the real `animal-store` CLI as a child process and waits until it listens. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, where `adapters/cli.ts` lives. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A CLI process and what it printed so far. */
export interface CliProcess {
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/** Runs `node --import tsx adapters/cli.ts …args` from the repository root. */
export const runCli = (args: string[], env: Record<string, string | undefined> = {}): CliProcess => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'adapters/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ANIMAL_STORE_API_KEYS: '', PORT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
};

/** Waits for the `listening on URL` line; rejects with the output if the process ends first. */
export const waitForListening = async (cli: CliProcess, timeoutMs = 15_000): Promise<string> => {
  const deadline = Date.now() + timeoutMs;
  let ended: number | string | undefined;
  void cli.exited.then((code) => (ended = code));
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(cli.stdout());
    if (match) return match[1]!;
    if (ended !== undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  cli.child.kill('SIGKILL');
  throw new Error(`CLI did not start (exit ${String(ended)}):\n${cli.stdout()}\n${cli.stderr()}`);
};

/** Starts the CLI and resolves with its base URL once it listens. */
export const startCli = async (args: string[], env?: Record<string, string | undefined>) => {
  const cli = runCli(args, env);
  const url = await waitForListening(cli);
  return { ...cli, url };
};
