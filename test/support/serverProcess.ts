/**
 * @module Starts the real server (`adapters/cli.ts serve`) as a child process on a data
 * file, for the durability tests, and makes sure none outlives its test.
 */
import fs from 'node:fs';
import * as v from 'valibot';
import { afterEach } from 'vitest';
import type { Pet } from '../../core/schemas/Pet.js';
import { type PetFileData, PetFileJson } from '../../storage/jsonFile/format/PetFileData.js';
import { readDataFile as readOnDisk } from '../storage/jsonFile/readDataFile.js';

export { tempDataFile } from './tempFolder.js';

import { type CliOptions, killLeftoverProcesses, LISTENING, type NodeProcess, runCli, waitForListening } from './startCli.js';

/** The API key every test server accepts. */
export const API_KEY = 'durability-test-key';

/** A server process and what it has said so far. */
export type ServerProcess = NodeProcess;

/** A started server, listening. */
export interface RunningServer extends ServerProcess {
  /** The base URL of the operations, such as `http://127.0.0.1:43211/v1`. */
  url: string;
}

/** Extra ways to start a server: preloaded modules (a test-only fs shim) and environment. */
export type SpawnOptions = CliOptions;

afterEach(killLeftoverProcesses);

/** Spawns `animal-store serve` on a data file; does not wait for anything. */
export const spawnServer = (file: string, options?: SpawnOptions): ServerProcess =>
  runCli(['serve', '--port', '0', '--data', file, '--api-key', API_KEY, '--quiet'], options);

/** Starts a server and resolves once it says it listens; rejects, with its output, if it exits first. */
export const startServer = async (file: string, options?: SpawnOptions): Promise<RunningServer> => {
  const server = spawnServer(file, options);
  return { ...server, url: await waitForListening(server) };
};

/** Runs a server that is expected to refuse to start; resolves with how it ended and what it said. */
export const runServerToExit = async (file: string, options?: SpawnOptions) => {
  const server = spawnServer(file, options);
  const listening = new Promise<'listening'>((resolve) =>
    server.child.stdout!.on('data', () => LISTENING.test(server.stdout()) && resolve('listening')),
  );
  const outcome = await Promise.race([server.exited, listening]);
  if (outcome === 'listening') throw new Error(`The server started although it should have refused:\n${server.stdout()}`);
  return { ...outcome, stderr: server.stderr(), stdout: server.stdout() };
};

/** Kills a server with SIGKILL, as a crash or power cut would end it, and waits until it is gone. */
export const crash = async (server: ServerProcess): Promise<void> => {
  server.child.kill('SIGKILL');
  await server.exited;
};

/** POSTs one animal; resolves with the status and the parsed body. Rejects when the connection fails. */
export const postPet = async (url: string, body: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${url}/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};

/** GETs a path under the base URL with the key; resolves with the status and the parsed body. */
export const getJson = async (url: string, pathAndQuery: string): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${url}${pathAndQuery}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return { status: response.status, body: await response.json() };
};

/**
 * Reads a data file, its document with its journal's changes (what a server opening it
 * serves), and checks it against the documented format (throws if it does not parse).
 */
export const readDataFile = (file: string): PetFileData => v.parse(PetFileJson, readOnDisk(file));

/** Reads a data file's document alone (what a stopped server leaves) and checks it against the documented format. */
export const readDocument = (file: string): PetFileData => v.parse(PetFileJson, JSON.parse(fs.readFileSync(file, 'utf8')));

/**
 * Keeps `clients` concurrent clients creating animals until `stop()` or until their server
 * goes away. Every 201 is recorded: those are the animals the service promised to keep.
 */
export const createStream = (url: string, clients: number, name = 'Streamed') => {
  const acknowledged: Pet[] = [];
  const otherStatuses: number[] = [];
  let stopped = false;
  let sent = 0;
  const client = async () => {
    while (!stopped) {
      try {
        const { status, body } = await postPet(url, { name: `${name} ${sent++}`, categoryId: 1 + (sent % 7) });
        if (status === 201) acknowledged.push(body as Pet);
        else otherStatuses.push(status);
      } catch {
        return; // The server is gone (killed or stopped): this client is done.
      }
    }
  };
  const running = Promise.all(Array.from({ length: clients }, client));
  return {
    acknowledged,
    otherStatuses,
    /** Stops sending and resolves once every client has its last answer (or error). */
    stop: async () => {
      stopped = true;
      await running;
    },
  };
};

/** Resolves once `condition` holds, polling every few milliseconds; rejects after `milliseconds`. */
export const until = async (condition: () => boolean, what: string, milliseconds = 10_000) => {
  const deadline = Date.now() + milliseconds;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
