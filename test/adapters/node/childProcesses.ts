/**
 * @module Starts the programs the connection tests need, each in a process of its own: the
 * server (`serveInChild.ts`, optionally under `ulimit -n`) and hostile clients
 * (`hostileClients.ts`). Every process is killed after its test by the shared tracker.
 */

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach } from 'vitest';
import type { ServeOptions } from '../../../adapters/node.js';
import { killLeftoverProcesses, type NodeProcess, REPO_ROOT, spawnNode, track, waitForOutput } from '../../support/nodeProcess.js';
import { LISTENING } from '../../support/startCli.js';
import type { HostileSettings } from './hostileClients.js';

afterEach(killLeftoverProcesses);

/** What `serveInChild.ts` accepts: serve() options and a few of its own. */
export type ChildServeOptions = Omit<ServeOptions, 'storage' | 'logger'> & { dataFile?: string; accessLog?: boolean };

/** A server running in a child process. */
export interface ChildServer extends NodeProcess {
  /** Its base URL, such as `http://127.0.0.1:40123/v1`. */
  url: string;
  port: number;
}

/**
 * Starts `serve()` in a child process and resolves once it listens. With `openFiles`, the
 * child runs under `ulimit -n openFiles`, as a server started from a default shell would.
 */
export const startServerInChild = async (options: ChildServeOptions, { openFiles }: { openFiles?: number } = {}): Promise<ChildServer> => {
  const env = { ANIMAL_STORE_SERVE: JSON.stringify(options) };
  const args = ['--import', 'tsx', 'test/adapters/node/serveInChild.ts'];
  const child =
    openFiles === undefined
      ? spawnNode(args, env)
      : track(
          spawn('bash', ['-c', `ulimit -n ${openFiles} && exec "$0" "$@"`, process.execPath, ...args], {
            cwd: REPO_ROOT,
            env: { ...process.env, ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        );
  const url = (await waitForOutput(child, LISTENING))[1]!;
  return { ...child, url, port: Number(new URL(url).port) };
};

/** Starts hostile clients in a child process (allowed more open files than the server) and resolves once all are connected. */
export const startHostileClients = async (settings: HostileSettings): Promise<NodeProcess> => {
  const child = track(
    spawn('bash', ['-c', `ulimit -n 8192 && exec "$0" "$@"`, process.execPath, '--import', 'tsx', 'test/adapters/node/hostileClients.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ANIMAL_STORE_HOSTILE: JSON.stringify(settings) },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  await waitForOutput(child, /^ready$/m, 30_000);
  return child;
};

/** Stops hostile clients and resolves with what they counted. */
export const stopHostileClients = async (
  clients: NodeProcess,
): Promise<{ opened: number; closedByServer: number; bytesWritten: number }> => {
  clients.child.kill('SIGTERM');
  await clients.exited;
  const line = /^stats (.*)$/m.exec(clients.stdout());
  if (!line) throw new Error(`The hostile clients printed no stats:\n${clients.stdout()}\n${clients.stderr()}`);
  return JSON.parse(line[1]!);
};

/** The resident memory of a process, in MiB, as Linux reports it (VmRSS). */
export const residentMiB = (pid: number): number => {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kib) throw new Error(`No VmRSS for process ${pid}`);
  return Number(kib[1]) / 1024;
};
