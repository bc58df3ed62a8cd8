/**
 * @module A program that runs `serve()` with the options a test gives it, for tests that need
 * the server in a process of its own: to read its memory, or to start it under `ulimit -n`.
 *
 *     ANIMAL_STORE_SERVE='{"keys":["k"],"maxConnections":50}' node --import tsx test/adapters/node/serveInChild.ts
 *
 * The JSON holds `serve()` options, plus `dataFile` (a JSON data file instead of memory) and
 * `accessLog` (print an `access METHOD PATH STATUS` line per answer). Prints
 * `listening on URL` once it serves, and errors on stderr.
 */
import { createMemoryStorage, openJsonFileStorage, type ServeOptions, serve } from '../../../adapters/node.js';

type ChildOptions = Omit<ServeOptions, 'storage' | 'logger'> & { dataFile?: string; accessLog?: boolean };

const { dataFile, accessLog, ...options } = JSON.parse(process.env.ANIMAL_STORE_SERVE ?? '{}') as ChildOptions;
const storage = dataFile === undefined ? createMemoryStorage() : await openJsonFileStorage({ file: dataFile });
const server = await serve({
  port: 0,
  ...options,
  storage,
  logger: {
    ...(accessLog ? { access: (entry) => process.stdout.write(`access ${entry.method} ${entry.path} ${entry.status}\n`) } : {}),
    warn: (message) => process.stderr.write(`warning: ${message}\n`),
    error: (message, error) => process.stderr.write(`error: ${message}: ${error instanceof Error ? error.stack : String(error)}\n`),
  },
});
process.stdout.write(`listening on ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
