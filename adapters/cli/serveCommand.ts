/** @module `animal-store serve`: its flags, and the settings a command line asks for. */
import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseApiKeyList, type Scope } from '../../core/auth/apiKeys.js';
import type { RateLimitOptions } from '../../core/http/createRateLimiter.js';
import { MAX_MEMORY_LIMIT } from '../../storage/createMemoryStorage.js';
import { DEFAULT_EXEMPT_ADDRESSES, SERVE_LIMIT_DEFAULTS, type ServeLimit } from '../node/serve.js';
import { closestCommand } from './closestCommand.js';
import { DEFAULT_LOG_BUFFER_BYTES } from './createLineWriter.js';
import {
  collect,
  collectOrigins,
  parseAddressList,
  parseBasePath,
  parsePort,
  parseRateLimit,
  parseSchema,
  wholeNumber,
} from './optionParsers.js';
import { addSyncOptions, readSyncSettings, type SyncSettings } from './syncOptions.js';
import { UsageError } from './UsageError.js';

/** Where the animals live. */
export type StorageChoice =
  | { kind: 'file'; file: string }
  | { kind: 'memory'; limit: number | undefined }
  | { kind: 'database'; url: string; schema: string | undefined };

/** A key given on the command line or in the environment, and where, to name it in messages without showing it. */
export interface ConfiguredKey {
  key: string;
  source: string;
  /** What the key may do (a keys-file line's scopes); every scope when left out. */
  scopes?: Scope[];
  /** The key's name for logs, metrics and the fleet view (a keys-file line's `name=`). */
  name?: string;
}

/** The settings of a `serve` run, as the command line gives them (files are read at start, not here). */
export interface ServeSettings {
  host: string;
  port: number;
  basePath: string;
  corsOrigins: string[];
  storage: StorageChoice;
  /** `--seed FILE`: animals for memory or a new data file. */
  seedFile: string | undefined;
  /** Keys from `--api-key` and `ANIMAL_STORE_API_KEYS`; empty when none were given there. */
  keys: ConfiguredKey[];
  /** `--api-key-file` files, read at start. */
  keyFiles: string[];
  cursorSecret: { value: string; source: string } | undefined;
  cursorSecretFile: string | undefined;
  rateLimit: RateLimitOptions | undefined;
  idempotency: { required: boolean; keyLifetimeSeconds: number };
  limits: Record<ServeLimit, number>;
  /** `--exempt-addresses`: client addresses the per-address connection cap does not apply to. */
  exemptAddresses: string[];
  logFormat: 'text' | 'json';
  quiet: boolean;
  /** `--max-log-buffer`: bytes stdout or stderr may hold unwritten before log lines are dropped. */
  maxLogBuffer: number;
  metrics: boolean;
  testMode: boolean;
  /** Milliseconds every answer waits in test mode; 0 for none. */
  delay: number;
  /** `--sync-with` and its companions: this server is a kiosk of that hub. */
  sync: SyncSettings | undefined;
  /** `--browser-kiosk`: serve the kiosk web app under /kiosk/. */
  browserKiosk: boolean;
}

/** The default data file, relative to the working directory. */
export const DEFAULT_DATA_FILE = './data/animals.json';

/** What commander collects for `serve`; every value is checked again in `readServeSettings`. */
interface ServeFlags {
  data?: string;
  memory?: boolean;
  memoryLimit?: number;
  database?: string;
  schema?: string;
  seed?: string;
  host: string;
  port?: number;
  basePath: string;
  cors?: string[];
  apiKey?: string[];
  apiKeyFile?: string[];
  cursorSecret?: string;
  cursorSecretFile?: string;
  rateLimit?: RateLimitOptions;
  requireIdempotencyKey?: boolean;
  idempotencyKeyLifetime: number;
  logFormat: 'text' | 'json';
  quiet?: boolean;
  maxLogBuffer: number;
  metrics?: boolean;
  browserKiosk?: boolean;
  testMode?: boolean;
  delay?: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  writeTimeout: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  exemptAddresses: string[];
  shedAfter: number;
  maxPipelinedRequests: number;
  shutdownTimeout: number;
  syncWith?: string;
  syncKey?: string;
  syncInterval: number;
  syncWait: number;
}

/** One flag per `serve()` limit, named after its option, with the same default. */
const LIMIT_FLAGS: Array<[ServeLimit, string, string]> = [
  ['headersTimeout', '--headers-timeout <MS>', 'milliseconds a client may take to send its headers (then 408)'],
  ['requestTimeout', '--request-timeout <MS>', 'milliseconds a client may take to send a whole request (then 408)'],
  ['keepAliveTimeout', '--keep-alive-timeout <MS>', 'milliseconds an idle keep-alive connection is kept'],
  ['writeTimeout', '--write-timeout <MS>', 'milliseconds unsent answers may stand still (a client not reading)'],
  ['maxConnections', '--max-connections <N>', 'connections open at once; by default 7/8 of ulimit -n, at most 16384'],
  [
    'maxConnectionsPerAddress',
    '--max-connections-per-address <N>',
    'connections from one client address not exempt (see --exempt-addresses)',
  ],
  ['shedAfter', '--shed-after <MS>', 'milliseconds without a complete request before a connection may be closed to make room'],
  ['maxPipelinedRequests', '--max-pipelined-requests <N>', 'requests one connection may send ahead of its answers (then 429)'],
  ['shutdownTimeout', '--shutdown-timeout <MS>', 'milliseconds a stop waits for requests in flight'],
];

const ENVIRONMENT_HELP = `
Environment:
  PORT                          the port, when --port is not given
  DATABASE_URL                  as --database; --data, FILE, --memory and --test-mode win over it
  ANIMAL_STORE_MEMORY_LIMIT     as --memory-limit
  ANIMAL_STORE_API_KEYS         accepted API keys, comma-separated (beside --api-key and --api-key-file)
  ANIMAL_STORE_CURSOR_SECRET    as --cursor-secret
  ANIMAL_STORE_EXEMPT_ADDRESSES as --exempt-addresses
  ANIMAL_STORE_MAX_LOG_BUFFER   as --max-log-buffer
  ANIMAL_STORE_SYNC_WITH        as --sync-with
  ANIMAL_STORE_SYNC_KEY         as --sync-key
  ANIMAL_STORE_SYNC_INTERVAL    as --sync-interval
  ANIMAL_STORE_SYNC_WAIT        as --sync-wait

With no key given, the server makes one for the run: it is printed on stderr and, with a
data file, written (mode 0600) to api-key beside it, e.g. data/api-key.

Exit codes: 0 after a clean stop (SIGTERM, SIGINT; SIGHUP never stops it), 1 when it cannot start, 2 for a
command-line mistake.

Examples:
  animal-store                                  serve ./data/animals.json on 127.0.0.1:8080
  animal-store ./pets.json -p 3000              serve another data file on port 3000
  animal-store --memory --seed seed.json        animals in memory, from a seed file
  animal-store --test-mode --seed seed.json     for end-to-end tests: POST /_test/reset, faults
  animal-store copy --from ./data/animals.json --to postgres://store@db/animals
  animal-store kiosk.json --sync-with https://hub.example/v1 --sync-key KEY   a kiosk that syncs
`;

/** `--memory-limit COUNT`: a whole number the memory store takes. */
const parseMemoryLimit = (text: string): number => {
  const value = wholeNumber(1)(text);
  if (value > MAX_MEMORY_LIMIT) throw new InvalidArgumentError(`It must be ${MAX_MEMORY_LIMIT} at most.`);
  return value;
};

/** Adds `serve`, the default command, to the program. */
export const addServeCommand = (program: Command): Command => {
  const serve = program
    .command('serve', { isDefault: true })
    .description('Serve the animal-store interface over HTTP (the default command).')
    .argument('[FILE]', `the JSON data file to keep animals in (as --data FILE; default ${DEFAULT_DATA_FILE})`)
    .allowExcessArguments();

  serve.optionsGroup('Storage (where the animals live):');
  serve
    .addOption(
      new Option('--data <FILE>', `the JSON data file (default ${DEFAULT_DATA_FILE}); created, mode 0600, when missing`).conflicts(
        'memory',
      ),
    )
    .option('--memory', 'keep animals in memory only, lost when the server stops')
    .addOption(
      new Option(
        '--memory-limit <COUNT>',
        'with --memory: the most animals plus live Idempotency-Keys held, up to 16000000; past it creates get 503 (default 2000000)',
      )
        .env('ANIMAL_STORE_MEMORY_LIMIT')
        .argParser(parseMemoryLimit),
    )
    .addOption(
      new Option('--database <URL>', 'keep animals in PostgreSQL, shared by every instance on the same URL (needs: npm install pg)').env(
        'DATABASE_URL',
      ),
    )
    .addOption(new Option('--schema <NAME>', "the database's PostgreSQL schema (default animal_store)").argParser(parseSchema))
    .option(
      '--seed <FILE>',
      'start with these animals (an array of animals or new animals, or a data file): memory or a new data file, never with --sync-with',
    );

  serve.optionsGroup('Listening:');
  serve
    .option('--host <HOST>', 'the interface to listen on; 0.0.0.0 for every one', '127.0.0.1')
    .addOption(new Option('-p, --port <PORT>', 'the port to listen on; 0 picks a free one').env('PORT').argParser(parsePort).default(8080))
    .addOption(new Option('--base-path <PATH>', 'the path the operations live under').argParser(parseBasePath).default('/v1'))
    .option('--cors <ORIGIN>', 'let a browser page from ORIGIN call the API; repeatable', collectOrigins);

  serve.optionsGroup('Keys and secrets:');
  serve
    .option(
      '--api-key-file <FILE>',
      'a file of accepted API keys, a line each: KEY [SCOPE…] [name=NAME] (scopes read, create, sync; none for all); read again when it changes and on SIGHUP; keep it chmod 600; repeatable',
      collect,
    )
    .option(
      '--api-key <KEY>',
      'an accepted API key; repeatable. Every local user can read it in the process list: prefer --api-key-file or the variable (env: ANIMAL_STORE_API_KEYS, keys split by commas)',
      collect,
    )
    .addOption(
      new Option('--cursor-secret <TEXT>', 'seals page cursors (16+ characters); give every instance the same one').env(
        'ANIMAL_STORE_CURSOR_SECRET',
      ),
    )
    .option('--cursor-secret-file <FILE>', 'as --cursor-secret, read from a file (its first line)');

  serve.optionsGroup('Requests:');
  serve
    .addOption(
      new Option('--rate-limit <LIMIT/SECONDS>', 'at most LIMIT requests per key in each window, e.g. 600/60').argParser(parseRateLimit),
    )
    .option('--require-idempotency-key', 'refuse a create without an Idempotency-Key (400)')
    .addOption(
      new Option('--idempotency-key-lifetime <SECONDS>', 'how long an Idempotency-Key is kept').argParser(wholeNumber(1)).default(86_400),
    );

  serve.optionsGroup('Network limits (see docs/network.md):');
  for (const [name, flags, description] of LIMIT_FLAGS) {
    serve.addOption(new Option(flags, description).argParser(wholeNumber(1)).default(SERVE_LIMIT_DEFAULTS[name]));
  }
  serve.addOption(
    new Option(
      '--exempt-addresses <LIST>',
      "client addresses, comma-separated, that --max-connections-per-address does not cap (a reverse proxy's); none for none",
    )
      .env('ANIMAL_STORE_EXEMPT_ADDRESSES')
      .argParser(parseAddressList)
      .default([...DEFAULT_EXEMPT_ADDRESSES], DEFAULT_EXEMPT_ADDRESSES.join(',')),
  );

  serve.optionsGroup('Logs and metrics:');
  serve
    .addOption(
      new Option('--log-format <FORMAT>', 'the access log on stdout, warnings and errors on stderr: text, or json (one object per line)')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--quiet', 'no access log')
    .addOption(
      new Option(
        '--max-log-buffer <BYTES>',
        'bytes stdout or stderr may hold unwritten (a slow reader); past it, lines are dropped and counted',
      )
        .env('ANIMAL_STORE_MAX_LOG_BUFFER')
        .argParser(wholeNumber(1))
        .default(DEFAULT_LOG_BUFFER_BYTES),
    )
    .option('--metrics', 'serve Prometheus metrics at /metrics, behind the API keys (needs: npm install prom-client)');

  addSyncOptions(serve);

  serve.optionsGroup('Kiosk in the browser:');
  serve.option(
    '--browser-kiosk',
    'serve the kiosk web app under /kiosk/ (a tablet opens /kiosk/#key=KEY once; it then works offline and syncs with this server)',
  );

  serve.optionsGroup('End-to-end tests:');
  serve
    .option('--test-mode', 'memory only, never with --sync-with: adds POST /_test/reset, POST and DELETE /_test/faults (key-protected)')
    .addOption(new Option('--delay <MS>', 'with --test-mode: every answer waits MS milliseconds').argParser(wholeNumber(0)));

  serve.optionsGroup('Other:');
  serve.helpOption('-h, --help', 'show this help (and animal-store --version the version)').addHelpText('after', ENVIRONMENT_HELP);
  return serve;
};

/** What an API key may hold: it travels as a Bearer token (RFC 6750's b64token). */
export const API_KEY_FORMAT = /^[A-Za-z0-9\-._~+/]+=*$/;

const nth = (position: number) => `#${position + 1}`;

/** The keys given on the command line and in the environment, each named by where it came from. */
const readKeys = (flags: ServeFlags, env: NodeJS.ProcessEnv): ConfiguredKey[] => {
  const list = env.ANIMAL_STORE_API_KEYS;
  const fromEnvironment = parseApiKeyList(list);
  // Set but holding nothing ("", " , ") is a mistake, not a reason to make a key.
  if (list !== undefined && list !== '' && fromEnvironment.length === 0) {
    throw new UsageError('ANIMAL_STORE_API_KEYS holds no key, only blanks and commas: give keys (key1,key2), or unset it');
  }
  const keys = [
    ...(flags.apiKey ?? []).map((key, position) => ({ key, source: `--api-key ${nth(position)}` })),
    ...fromEnvironment.map((key, position) => ({ key, source: `key ${nth(position)} of ANIMAL_STORE_API_KEYS` })),
  ];
  const malformed = keys.find(({ key }) => !API_KEY_FORMAT.test(key));
  if (malformed) {
    throw new UsageError(
      `an API key must be letters, digits and -._~+/ (it travels as a Bearer token); ${malformed.source} is not (make one with: openssl rand -base64 24)`,
    );
  }
  const seen = new Set<string>();
  return keys.filter(({ key }) => !seen.has(key) && seen.add(key));
};

/** Where the animals live, from FILE, --data, --memory, --database (or DATABASE_URL) and --test-mode. */
const readStorage = (command: Command, flags: ServeFlags, file: string | undefined): StorageChoice => {
  if (file !== undefined && flags.data !== undefined) throw new UsageError('give the data file once: as FILE or as --data FILE');
  // A mistyped command must not become a new data file of that name.
  if (file !== undefined && !/\.json$/i.test(file) && !existsSync(file)) {
    const meant = closestCommand(file, ['serve', 'copy', 'init-worker']);
    throw new UsageError(
      `unknown command ${JSON.stringify(file.slice(0, 40))}; ${meant === undefined ? '' : `did you mean ${meant}? `}the commands are serve, copy and init-worker (a data file given as FILE ends in .json)`,
    );
  }
  const dataFile = file ?? flags.data;
  const fileFlag = file === undefined ? '--data' : `the data file ${JSON.stringify(file.slice(0, 40))}`;
  // --data with --memory is commander's conflict; FILE, an argument, is not an option it knows.
  if (flags.memory && file !== undefined) throw new UsageError(`${fileFlag} and --memory exclude each other; choose one`);
  if (flags.testMode && dataFile !== undefined) {
    throw new UsageError(`--test-mode keeps animals in memory only; it cannot be used with ${fileFlag}`);
  }
  const fromFlag = command.getOptionValueSource('database') === 'cli';
  if (fromFlag && flags.database === undefined) throw new UsageError('--database needs a postgres:// URL');
  if (fromFlag && flags.testMode) throw new UsageError('--test-mode keeps animals in memory only; it cannot be used with --database');
  if (fromFlag && (dataFile !== undefined || flags.memory)) {
    throw new UsageError(`--database and ${flags.memory ? '--memory' : fileFlag} exclude each other; choose one`);
  }
  // An explicit --data, FILE, --memory or --test-mode wins over a DATABASE_URL the environment happens to hold.
  const url = fromFlag || (dataFile === undefined && !flags.memory && !flags.testMode) ? flags.database : undefined;
  if (url !== undefined) {
    if (!/^postgres(ql)?:\/\/./i.test(url)) {
      throw new UsageError(`${fromFlag ? '--database' : 'DATABASE_URL'} must be a postgres:// or postgresql:// URL`);
    }
    return { kind: 'database', url, schema: flags.schema };
  }
  if (flags.schema !== undefined) throw new UsageError('--schema names a PostgreSQL schema: it needs --database (or DATABASE_URL)');
  // From the environment it may sit beside any storage; on the command line it asks for memory.
  if (command.getOptionValueSource('memoryLimit') === 'cli' && !flags.memory) {
    throw new UsageError('--memory-limit bounds the animals kept in memory: it needs --memory');
  }
  return flags.memory || flags.testMode
    ? { kind: 'memory', limit: flags.memoryLimit }
    : { kind: 'file', file: dataFile ?? DEFAULT_DATA_FILE };
};

/**
 * Refuses `--test-mode` and `--seed` beside `--sync-with` (or ANIMAL_STORE_SYNC_WITH), before
 * anything is opened or written: test animals, and ids a reset gives again, must never reach
 * a real hub, and seeded animals are made without sync, so their ids could collide with the
 * hub's.
 */
const refuseWithSync = (command: Command, flags: ServeFlags): void => {
  if (flags.syncWith === undefined) return;
  const sync = command.getOptionValueSource('syncWith') === 'env' ? 'ANIMAL_STORE_SYNC_WITH' : '--sync-with';
  if (flags.testMode) {
    throw new UsageError(
      `--test-mode and ${sync} exclude each other: test animals, and the ids POST /_test/reset gives again, must never reach a real hub. Run a test server without sync, or a kiosk without --test-mode`,
    );
  }
  if (flags.seed !== undefined) {
    throw new UsageError(
      `--seed and ${sync} exclude each other: a kiosk's animals come from its hub, and seeded ones, made without sync, could collide with the hub's ids. Seed the hub instead (start it with --seed on a new data file, or animal-store copy --from FILE --to HUB-STORAGE), and start the kiosk without --seed`,
    );
  }
};

/**
 * Reads the settings of a parsed `serve` command and checks what commander cannot: choices
 * that exclude each other, secrets (whose messages never repeat them) and values that
 * depend on one another. Throws a UsageError.
 */
export const readServeSettings = (command: Command, file: string | undefined, env: NodeJS.ProcessEnv): ServeSettings => {
  const extra = command.args[1];
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra.slice(0, 40))}`);
  // An empty value in the environment counts as unset (`PORT=`, as shells and container files
  // write it); an empty flag is a mistake.
  for (const option of command.options) {
    const name = option.attributeName();
    if (command.getOptionValue(name) !== '') continue;
    if (command.getOptionValueSource(name) !== 'env') throw new UsageError(`${option.long} needs a value`);
    command.setOptionValueWithSource(name, option.defaultValue, 'default');
  }
  const flags = command.opts<ServeFlags>();
  const storage = readStorage(command, flags, file);
  if (flags.seed !== undefined && storage.kind === 'database') {
    throw new UsageError(
      '--seed fills memory or a new data file; to fill a database, copy a data file into it: animal-store copy --from FILE --to URL',
    );
  }
  // The kiosk's page and its API (/kiosk/v1, answered in the browser) own /kiosk.
  if (flags.browserKiosk && (flags.basePath === '/kiosk' || flags.basePath.startsWith('/kiosk/'))) {
    throw new UsageError(`--browser-kiosk serves the kiosk app under /kiosk/, so --base-path cannot be ${flags.basePath}`);
  }
  if (flags.delay !== undefined && !flags.testMode) {
    throw new UsageError('--delay slows every answer down, for end-to-end tests: it needs --test-mode');
  }
  refuseWithSync(command, flags);
  const secretSource = command.getOptionValueSource('cursorSecret') === 'env' ? 'ANIMAL_STORE_CURSOR_SECRET' : '--cursor-secret';
  if (flags.cursorSecret !== undefined && flags.cursorSecret.length < 16) {
    throw new UsageError(`${secretSource} must be at least 16 characters`);
  }
  if (flags.cursorSecret !== undefined && flags.cursorSecretFile !== undefined) {
    throw new UsageError(`--cursor-secret-file and ${secretSource} exclude each other; choose one`);
  }
  return {
    host: flags.host,
    port: flags.port ?? 8080,
    basePath: flags.basePath,
    corsOrigins: flags.cors ?? [],
    storage,
    seedFile: flags.seed,
    keys: readKeys(flags, env),
    keyFiles: flags.apiKeyFile ?? [],
    cursorSecret: flags.cursorSecret === undefined ? undefined : { value: flags.cursorSecret, source: secretSource },
    cursorSecretFile: flags.cursorSecretFile,
    rateLimit: flags.rateLimit,
    idempotency: { required: flags.requireIdempotencyKey ?? false, keyLifetimeSeconds: flags.idempotencyKeyLifetime },
    limits: Object.fromEntries(LIMIT_FLAGS.map(([name]) => [name, flags[name]])) as Record<ServeLimit, number>,
    exemptAddresses: flags.exemptAddresses,
    logFormat: flags.logFormat,
    quiet: flags.quiet ?? false,
    maxLogBuffer: flags.maxLogBuffer,
    metrics: flags.metrics ?? false,
    testMode: flags.testMode ?? false,
    delay: flags.delay ?? 0,
    sync: readSyncSettings(flags, command, API_KEY_FORMAT),
    browserKiosk: flags.browserKiosk ?? false,
  };
};
