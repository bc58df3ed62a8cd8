#!/usr/bin/env node
import { generateApiKey } from '../core/auth/apiKeys.js';
import { isAnimalStoreError, type PetStorage } from '../core/index.js';
/**
 * @module The `animal-store` command: the one place that builds a storage, the service and
 * a server, and ties them to the process (signals, exit codes, output).
 */
import { copyPets } from '../storage/copyPets.js';
import { createMemoryStorage } from '../storage/createMemoryStorage.js';
import { openJsonFileStorage } from '../storage/jsonFile/openJsonFileStorage.js';
import { TargetNotEmptyError } from '../storage/PetContent.js';
import { openPostgresStorage } from '../storage/postgres/openPostgresStorage.js';
import { reasonOf } from '../storage/reasonOf.js';
import { type CopySettings, parseCopyArgs } from './cli/parseCopyArgs.js';
import { parseServeArgs, type ServeSettings, USAGE, UsageError } from './cli/parseServeArgs.js';
import { serve } from './node/serve.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** Opens the storage the settings ask for; a damaged or locked file, or a database out of reach, ends the start here. */
const openStorage = async ({ dataFile, databaseUrl }: ServeSettings): Promise<PetStorage> =>
  databaseUrl !== undefined
    ? openPostgresStorage({ connectionString: databaseUrl })
    : dataFile === undefined
      ? createMemoryStorage()
      : openJsonFileStorage({ file: dataFile });

/** An error for the operator's log: its stack, and what caused it (a database's own words), never shown to clients. */
const describeError = (error: unknown): string => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? text : `${text}\n  caused by: ${reasonOf(cause)}`;
};

/** Makes a key when none is configured: the server never runs open. */
const ensureKeys = (settings: ServeSettings): string[] => {
  if (settings.keys.length > 0) return settings.keys;
  const key = generateApiKey();
  out(`no API key configured; generated one for this run: ${key}`);
  out('set your own with --api-key KEY (repeatable) or ANIMAL_STORE_API_KEYS=KEY1,KEY2');
  return [key];
};

const run = async (settings: ServeSettings) => {
  const storage = await openStorage(settings);
  const server = await serve({
    storage,
    keys: ensureKeys(settings),
    host: settings.host,
    port: settings.port,
    basePath: settings.basePath,
    ...(settings.cursorSecret === undefined ? {} : { cursorSecret: settings.cursorSecret }),
    ...(settings.corsOrigins.length > 0 ? { cors: { origins: settings.corsOrigins } } : {}),
    logger: {
      // Method, path, status and time only: never a header, so never a key.
      ...(settings.quiet
        ? {}
        : { access: (e) => out(`${new Date().toISOString()} ${e.method} ${e.path} ${e.status} ${e.milliseconds.toFixed(1)}ms`) }),
      warn: (message) => err(`warning: ${message}`),
      // A known failure's message says all (a storage's cause, say); only the unforeseen need a stack.
      error: (message, error) => err(isAnimalStoreError(error) ? `error: ${message}` : `error: ${message}: ${describeError(error)}`),
    },
  }).catch(async (error: unknown) => {
    await storage.close();
    throw error;
  });
  out(`listening on ${server.url}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      err(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    if (!settings.quiet) out(`${signal}: finishing in-flight requests, then stopping`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        err(`error while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
};

/** `animal-store copy`: one line saying what was copied, or why nothing was. */
const copy = async ({ from, to, replace }: CopySettings) => {
  try {
    const report = await copyPets({ from, to, replace });
    const keys = report.idempotencyKeys === 1 ? '1 Idempotency-Key' : `${report.idempotencyKeys} Idempotency-Keys`;
    out(`copied ${report.pets} animals, ${keys} and the next id ${report.nextId} from ${report.from} to ${report.to}`);
  } catch (error) {
    const advice = error instanceof TargetNotEmptyError ? ' Give --replace to replace it.' : '';
    err(`animal-store: ${reasonOf(error)}${advice}`);
    process.exit(1);
  }
};

/** A command-line mistake: one line, the usage, exit code 2. */
const usageError = (error: unknown): never => {
  if (!(error instanceof UsageError)) throw error;
  err(`animal-store: ${error.message}`);
  err(USAGE);
  process.exit(2);
};

const main = async () => {
  const argv = process.argv.slice(2);
  if (argv[0] === 'copy') {
    let copyRequest: ReturnType<typeof parseCopyArgs>;
    try {
      copyRequest = parseCopyArgs(argv.slice(1));
    } catch (error) {
      return usageError(error);
    }
    return copyRequest.kind === 'help' ? out(USAGE) : copy(copyRequest.settings);
  }
  let request: ReturnType<typeof parseServeArgs>;
  try {
    request = parseServeArgs(argv, process.env);
  } catch (error) {
    return usageError(error);
  }
  if (request.kind === 'help') return out(USAGE);
  try {
    await run(request.settings);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const { host, port } = request.settings;
    const message =
      code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use; choose another with --port (0 picks a free one)`
        : code === 'EADDRNOTAVAIL'
          ? `cannot listen on ${host}: no such address on this machine`
          : (error as Error).message;
    err(`animal-store: ${message}`);
    process.exit(1);
  }
};

await main();
