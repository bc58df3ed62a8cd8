/** @module Reads the `animal-store serve` command line into server settings. */
import { parseArgs } from 'node:util';
import { parseApiKeyList } from '../../core/auth/apiKeys.js';

/** The usage text, printed by `--help` and after any command-line error. */
export const USAGE = `Usage: animal-store serve [options]
       animal-store copy --from PLACE --to PLACE [--replace]

Serves the animal-store interface over HTTP.

Options:
  --host HOST            interface to listen on (default 127.0.0.1)
  --port PORT            port to listen on (default $PORT or 8080; 0 picks a free port)
  --data FILE            JSON file to keep animals in (default ./data/animals.json)
  --memory               keep animals in memory only (lost when the server stops)
  --database URL         keep animals in PostgreSQL, shared by every instance given the same URL
                         (also DATABASE_URL=postgres://…; needs npm install pg)
  --api-key KEY          an accepted API key; repeat for several (also ANIMAL_STORE_API_KEYS=k1,k2)
  --cursor-secret TEXT   seals page cursors; give every instance the same one (also
                         ANIMAL_STORE_CURSOR_SECRET; at least 16 characters)
  --base-path PATH       path the operations live under (default /v1)
  --cors ORIGIN          let a browser page from ORIGIN call the API; repeatable
  --quiet                no access log
  --help                 show this help

Copy copies every animal, the next id and the Idempotency-Keys from one place to another:
a data file or a postgres:// URL, either way. A target that holds animals is refused
unless --replace is given.`;

/** The settings of a `serve` run. */
export interface ServeSettings {
  host: string;
  port: number;
  /** The data file, or `undefined` with `--memory` or a database. */
  dataFile: string | undefined;
  /** The PostgreSQL connection string, from `--database` or `DATABASE_URL`; `undefined` otherwise. */
  databaseUrl: string | undefined;
  /** The secret that seals page cursors; `undefined` for the built-in one. */
  cursorSecret: string | undefined;
  /** Keys from the command line and the environment; empty when none were configured. */
  keys: string[];
  basePath: string;
  corsOrigins: string[];
  quiet: boolean;
}

/** What the command line asks for. */
export type CliRequest = { kind: 'help' } | { kind: 'serve'; settings: ServeSettings };

/** A command-line mistake: printed in one line, followed by the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const parsePort = (text: string, source: string): number => {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 65535) {
    throw new UsageError(`${source} must be a port number from 0 to 65535, not ${JSON.stringify(text.slice(0, 20))}`);
  }
  return Number(text);
};

const parseOrigin = (text: string): string => {
  if (text === '*') return text;
  let origin: string | undefined;
  try {
    origin = new URL(text).origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin === 'null' || origin !== text) {
    throw new UsageError(
      `--cors needs an origin such as http://localhost:5173 (scheme, host and port, no path), not ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  return origin;
};

/**
 * Parses `animal-store <command> [options]`. Throws a UsageError for anything it does not
 * understand, rather than guessing: a typo in a flag must not start a server the operator
 * did not ask for.
 */
export const parseServeArgs = (argv: readonly string[], env: Record<string, string | undefined>): CliRequest => {
  const parse = () =>
    parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        data: { type: 'string' },
        memory: { type: 'boolean' },
        database: { type: 'string' },
        'api-key': { type: 'string', multiple: true },
        'cursor-secret': { type: 'string' },
        'base-path': { type: 'string' },
        cors: { type: 'string', multiple: true },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const [command, ...extra] = positionals;
  if (command === undefined) throw new UsageError('a command is needed: animal-store serve');
  if (command !== 'serve') {
    throw new UsageError(`unknown command ${JSON.stringify(command.slice(0, 20))}; the commands are "serve" and "copy"`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0]!.slice(0, 40))}`);
  if (values.memory && values.data !== undefined) throw new UsageError('--data and --memory exclude each other; choose one');
  if (values.database !== undefined && (values.data !== undefined || values.memory)) {
    throw new UsageError(`--database and --${values.memory ? 'memory' : 'data'} exclude each other; choose one`);
  }
  if (values.data === '') throw new UsageError('--data needs a file name');
  // An explicit --data or --memory wins over a DATABASE_URL the environment happens to hold.
  const databaseUrl = values.database ?? (values.data === undefined && !values.memory ? env.DATABASE_URL || undefined : undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/./i.test(databaseUrl)) {
    throw new UsageError(`${values.database === undefined ? 'DATABASE_URL' : '--database'} must be a postgres:// or postgresql:// URL`);
  }
  const cursorSecret = values['cursor-secret'] ?? (env.ANIMAL_STORE_CURSOR_SECRET || undefined);
  if (cursorSecret !== undefined && cursorSecret.length < 16) {
    throw new UsageError(
      `${values['cursor-secret'] === undefined ? 'ANIMAL_STORE_CURSOR_SECRET' : '--cursor-secret'} must be at least 16 characters`,
    );
  }
  if (values.host === '') throw new UsageError('--host needs a host name or address');

  const basePath = values['base-path'] ?? '/v1';
  if (!/^(\/[A-Za-z0-9._~-]+)*\/?$/.test(basePath)) {
    throw new UsageError(
      `--base-path must look like /v1 (a leading slash, URL-safe segments), not ${JSON.stringify(basePath.slice(0, 40))}`,
    );
  }
  const keys = [...(values['api-key'] ?? []), ...parseApiKeyList(env.ANIMAL_STORE_API_KEYS)];
  if (keys.some((key) => !/^[A-Za-z0-9\-._~+/]+=*$/.test(key))) {
    throw new UsageError('an API key must be letters, digits and -._~+/ (it travels as a Bearer token)');
  }

  return {
    kind: 'serve',
    settings: {
      host: values.host ?? '127.0.0.1',
      port: values.port !== undefined ? parsePort(values.port, '--port') : env.PORT ? parsePort(env.PORT, 'PORT') : 8080,
      dataFile: values.memory || databaseUrl !== undefined ? undefined : (values.data ?? './data/animals.json'),
      databaseUrl,
      cursorSecret,
      keys: [...new Set(keys)],
      basePath: basePath.replace(/\/$/, ''),
      corsOrigins: (values.cors ?? []).map(parseOrigin),
      quiet: values.quiet ?? false,
    },
  };
};
