import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseCommandLine } from '../../../adapters/cli/parseCommandLine.js';
import { UsageError } from '../../../adapters/cli/UsageError.js';
import { SERVE_LIMIT_DEFAULTS } from '../../../adapters/node/serve.js';

// The machine's own variables must not decide what a test reads.
const VARIABLES = [
  'PORT',
  'DATABASE_URL',
  'ANIMAL_STORE_API_KEYS',
  'ANIMAL_STORE_CURSOR_SECRET',
  'ANIMAL_STORE_EXEMPT_ADDRESSES',
  'ANIMAL_STORE_MAX_LOG_BUFFER',
  'ANIMAL_STORE_MEMORY_LIMIT',
];
beforeEach(() => {
  for (const name of VARIABLES) vi.stubEnv(name, undefined);
});
afterEach(() => vi.unstubAllEnvs());

const settingsOf = (argv: string[]) => {
  const request = parseCommandLine(argv);
  if (request.kind !== 'serve') throw new Error(`expected serve, got ${request.kind}`);
  return request.settings;
};

const refusal = (argv: string[]): UsageError => {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
};

describe('animal-store command line: serve', () => {
  it('serves by default, with safe defaults: loopback, 8080, ./data/animals.json, /v1, no keys yet', () => {
    expect(settingsOf([])).toEqual({
      host: '127.0.0.1',
      port: 8080,
      basePath: '/v1',
      corsOrigins: [],
      storage: { kind: 'file', file: './data/animals.json' },
      seedFile: undefined,
      keys: [],
      keyFiles: [],
      cursorSecret: undefined,
      cursorSecretFile: undefined,
      rateLimit: undefined,
      idempotency: { required: false, keyLifetimeSeconds: 86_400 },
      limits: SERVE_LIMIT_DEFAULTS,
      exemptAddresses: ['127.0.0.1', '::1'],
      logFormat: 'text',
      quiet: false,
      maxLogBuffer: 1_048_576,
      metrics: false,
      testMode: false,
      browserKiosk: false,
      delay: 0,
    });
    expect(settingsOf(['serve'])).toEqual(settingsOf([]));
  });

  it('serves a data file given as FILE, as json-server does: animal-store ./pets.json', () => {
    expect(settingsOf(['./pets.json']).storage).toEqual({ kind: 'file', file: './pets.json' });
    expect(settingsOf(['serve', 'shop/pets.JSON', '-p', '3000'])).toMatchObject({
      storage: { kind: 'file', file: 'shop/pets.JSON' },
      port: 3000,
    });
    expect(settingsOf(['--data', 'x.json']).storage).toEqual({ kind: 'file', file: 'x.json' });
  });

  it('reads every flag, repeatable keys, key files and origins, and keys from the environment', () => {
    vi.stubEnv('ANIMAL_STORE_API_KEYS', 'key-from-env-0003, key-from-env-0004,,key-from-argv-0001');
    const settings = settingsOf([
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--memory',
      '--seed',
      'seed.json',
      '--api-key',
      'key-from-argv-0001',
      '--api-key',
      'key-from-argv-0002',
      '--api-key-file',
      '/run/secrets/keys',
      '--cursor-secret-file',
      '/run/secrets/cursor',
      '--base-path',
      '/api/',
      '--cors',
      'http://localhost:5173',
      '--cors',
      'https://kiosk.example',
      '--rate-limit',
      '600/60',
      '--require-idempotency-key',
      '--idempotency-key-lifetime',
      '3600',
      '--headers-timeout',
      '2000',
      '--request-timeout',
      '3000',
      '--keep-alive-timeout',
      '4000',
      '--write-timeout',
      '5000',
      '--max-connections',
      '100',
      '--max-connections-per-address',
      '10',
      '--shed-after',
      '500',
      '--exempt-addresses',
      '10.0.0.5, ::1',
      '--max-pipelined-requests',
      '4',
      '--shutdown-timeout',
      '6000',
      '--log-format',
      'json',
      '--quiet',
      '--metrics',
    ]);
    expect(settings).toEqual({
      host: '0.0.0.0',
      port: 0,
      basePath: '/api',
      corsOrigins: ['http://localhost:5173', 'https://kiosk.example'],
      storage: { kind: 'memory' },
      seedFile: 'seed.json',
      keys: [
        { key: 'key-from-argv-0001', source: '--api-key #1' },
        { key: 'key-from-argv-0002', source: '--api-key #2' },
        { key: 'key-from-env-0003', source: 'key #1 of ANIMAL_STORE_API_KEYS' },
        { key: 'key-from-env-0004', source: 'key #2 of ANIMAL_STORE_API_KEYS' },
      ],
      keyFiles: ['/run/secrets/keys'],
      cursorSecret: undefined,
      cursorSecretFile: '/run/secrets/cursor',
      rateLimit: { limit: 600, windowSeconds: 60 },
      idempotency: { required: true, keyLifetimeSeconds: 3600 },
      limits: {
        headersTimeout: 2000,
        requestTimeout: 3000,
        keepAliveTimeout: 4000,
        writeTimeout: 5000,
        maxConnections: 100,
        maxConnectionsPerAddress: 10,
        shedAfter: 500,
        maxPipelinedRequests: 4,
        shutdownTimeout: 6000,
      },
      exemptAddresses: ['10.0.0.5', '::1'],
      logFormat: 'json',
      quiet: true,
      maxLogBuffer: 1_048_576,
      metrics: true,
      testMode: false,
      browserKiosk: false,
      delay: 0,
    });
  });

  it('takes the addresses exempt from the per-address cap from ANIMAL_STORE_EXEMPT_ADDRESSES; none exempts none', () => {
    vi.stubEnv('ANIMAL_STORE_EXEMPT_ADDRESSES', '192.0.2.10');
    expect(settingsOf([]).exemptAddresses).toEqual(['192.0.2.10']);
    expect(settingsOf(['--exempt-addresses', 'none']).exemptAddresses).toEqual([]);
  });

  it('takes the port from PORT when no --port is given; an empty variable counts as unset', () => {
    vi.stubEnv('PORT', '9000');
    expect(settingsOf([]).port).toBe(9000);
    expect(settingsOf(['-p', '1']).port).toBe(1);
    vi.stubEnv('PORT', '');
    expect(settingsOf([]).port).toBe(8080);
    vi.stubEnv('PORT', 'eighty');
    expect(refusal([]).message).toMatch(/PORT/);
  });

  it('prints its version and its help, which warns that --api-key shows in the process list', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'print', text: `${version}\n` });
    expect(parseCommandLine(['-V'])).toEqual({ kind: 'print', text: `${version}\n` });
    for (const argv of [['--help'], ['-h'], ['serve', '--help'], ['./pets.json', '-h']]) {
      const request = parseCommandLine(argv);
      expect(request.kind).toBe('print');
      const text = request.kind === 'print' ? request.text : '';
      expect(text).toMatch(/^Usage: animal-store serve \[options\] \[FILE\]/);
      for (const flag of [
        '--api-key-file FILE',
        '--test-mode',
        '--metrics',
        '--log-format FORMAT',
        '--max-connections N',
        'DATABASE_URL',
      ]) {
        expect(text).toContain(flag);
      }
      expect(text).toMatch(/--api-key KEY[^-]*process\s+list/);
    }
    const copyHelp = parseCommandLine(['copy', '--help']);
    expect(copyHelp.kind === 'print' && copyHelp.text).toMatch(/^Usage: animal-store copy --from PLACE --to PLACE/);
  });

  it('bounds what a stalled log may hold: 1 MiB by default, --max-log-buffer or ANIMAL_STORE_MAX_LOG_BUFFER', () => {
    expect(settingsOf([]).maxLogBuffer).toBe(1_048_576);
    expect(settingsOf(['--max-log-buffer', '65536']).maxLogBuffer).toBe(65_536);
    vi.stubEnv('ANIMAL_STORE_MAX_LOG_BUFFER', '4096');
    expect(settingsOf([]).maxLogBuffer).toBe(4096);
    expect(settingsOf(['--max-log-buffer', '8192']).maxLogBuffer).toBe(8192);
    expect(refusal(['--max-log-buffer', '0']).message).toMatch(/--max-log-buffer.*1 or more/);
    expect(parseCommandLine(['--help'])).toMatchObject({ text: expect.stringContaining('--max-log-buffer BYTES') });
  });

  it('answers a mistyped flag with the closest valid one, in one line', () => {
    expect(refusal(['--prot', '8080']).message).toBe("unknown option '--prot'; did you mean --port?");
    expect(refusal(['serve', '--api-kye', 'x']).message).toBe("unknown option '--api-kye'; did you mean --api-key?");
    expect(refusal(['--memroy']).message).toBe("unknown option '--memroy'; did you mean --memory?");
  });

  it('answers a mistyped command with the closest one, and a word far from both with none', () => {
    expect(refusal(['serv']).message).toMatch(/^unknown command "serv"; did you mean serve\? the commands are serve, copy and init-worker/);
    expect(refusal(['cpoy']).message).toMatch(/^unknown command "cpoy"; did you mean copy\?/);
    expect(refusal(['pets']).message).toBe(
      'unknown command "pets"; the commands are serve, copy and init-worker (a data file given as FILE ends in .json)',
    );
  });

  it.each([
    [['start'], /unknown command "start"; the commands are serve, copy and init-worker/],
    [['serve', 'a.json', 'extra'], /unexpected argument "extra"/],
    [['--port', '65536'], /port/],
    [['--port', 'http'], /port/],
    [['--port'], /port/],
    [['--port', ''], /--port needs a value/],
    [['--data', ''], /--data needs a value/],
    [['--host', ''], /--host needs a value/],
    [['--data', 'x.json', '--memory'], /--data and --memory exclude each other/],
    [['x.json', '--memory'], /the data file "x.json" and --memory exclude each other/],
    [['x.json', '--data', 'y.json'], /give the data file once/],
    [['--memory', '--memory-limit', '0'], /--memory-limit/],
    [['--memory', '--memory-limit', '16000001'], /--memory-limit.*16000000 at most/],
    [['--memory-limit', '1000'], /--memory-limit bounds the animals kept in memory: it needs --memory/],
    [['--base-path', 'v1'], /--base-path/],
    [['--cors', 'localhost'], /--cors/],
    [['--cors', 'http://localhost:5173/path'], /--cors/],
    [['--api-key', 'has space'], /an API key must be letters, digits and -\._~\+\/.*--api-key #1/],
    [['--rate-limit', '600'], /--rate-limit.*LIMIT\/SECONDS/],
    [['--rate-limit', '0/60'], /--rate-limit/],
    [['--rate-limit', '600/x'], /--rate-limit/],
    [['--log-format', 'xml'], /--log-format.*text, json/],
    [['--max-connections', '0'], /--max-connections/],
    [['--exempt-addresses', 'localhost'], /--exempt-addresses.*"localhost" is not an IP address/],
    [['--headers-timeout', '1.5'], /--headers-timeout/],
    [['--idempotency-key-lifetime', '-1'], /--idempotency-key-lifetime/],
    [['--schema', 'Bad-Name', '--database', 'postgres://h/d'], /schema/],
    [['--schema', 'shop'], /--schema names a PostgreSQL schema: it needs --database/],
    [['--test-mode', '--data', 'x.json'], /--test-mode keeps animals in memory only; it cannot be used with --data/],
    [['--test-mode', 'x.json'], /--test-mode keeps animals in memory only; it cannot be used with the data file/],
    [['--test-mode', '--database', 'postgres://h/d'], /--test-mode keeps animals in memory only; it cannot be used with --database/],
    [['--delay', '100'], /--delay .*needs --test-mode/],
    [['--test-mode', '--delay', 'soon'], /--delay/],
    [['--seed', 's.json', '--database', 'postgres://h/d'], /--seed fills memory or a new data file/],
    [
      ['--cursor-secret', 'a-secret-of-16-chars', '--cursor-secret-file', 'f'],
      /--cursor-secret-file and --cursor-secret exclude each other/,
    ],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(refusal(argv).message).toMatch(message);
  });

  it("never takes a flag as another flag's value: --data --memory is refused, not a file named --memory", () => {
    expect(refusal(['--data', '--memory']).message).toBe(
      '--data needs a value, not the flag --memory: write --data FILE (a value that starts with a dash: --data=FILE)',
    );
    expect(refusal(['--api-key-file', '-p', '8080']).message).toMatch(/^--api-key-file needs a value, not the flag -p/);
    expect(refusal(['-p', '--memory']).message).toMatch(/^-p needs a value, not the flag --memory/);
    expect(refusal(['copy', '--from', '--to', 'x.json']).message).toMatch(/^--from needs a value, not the flag --to/);
    expect(refusal(['copy', '--from', '--to', 'x.json']).command).toBe('copy');
    // A value that does start with a dash is still possible, in one word.
    expect(settingsOf(['--data=--odd.json']).storage).toEqual({ kind: 'file', file: '--odd.json' });
    expect(settingsOf(['--memory', '--host', '::1']).host).toBe('::1');
  });

  it('refuses a key list of blanks instead of generating a key; an empty one counts as unset', () => {
    vi.stubEnv('ANIMAL_STORE_API_KEYS', ' , ');
    expect(refusal([]).message).toMatch(/ANIMAL_STORE_API_KEYS holds no key/);
    vi.stubEnv('ANIMAL_STORE_API_KEYS', '');
    expect(settingsOf([]).keys).toEqual([]);
  });

  it('keeps animals in PostgreSQL with --database or DATABASE_URL, the flag first, in a chosen schema', () => {
    const url = 'postgres://store@db.internal:5432/animals';
    expect(settingsOf(['--database', url]).storage).toEqual({ kind: 'database', url, schema: undefined });
    expect(settingsOf(['--database', url, '--schema', 'shop_2']).storage).toEqual({ kind: 'database', url, schema: 'shop_2' });
    vi.stubEnv('DATABASE_URL', url);
    expect(settingsOf([]).storage).toEqual({ kind: 'database', url, schema: undefined });
    expect(settingsOf(['--database', 'postgresql://h/d']).storage).toMatchObject({ url: 'postgresql://h/d' });
  });

  it('bounds the memory store with --memory-limit or ANIMAL_STORE_MEMORY_LIMIT', () => {
    expect(settingsOf(['--memory', '--memory-limit', '5000']).storage).toEqual({ kind: 'memory', limit: 5000 });
    vi.stubEnv('ANIMAL_STORE_MEMORY_LIMIT', '7000');
    expect(settingsOf(['--memory']).storage).toEqual({ kind: 'memory', limit: 7000 });
  });

  it('lets FILE, --data, --memory or --test-mode win over a DATABASE_URL in the environment', () => {
    vi.stubEnv('DATABASE_URL', 'postgres://store@db/animals');
    expect(settingsOf(['--memory']).storage).toEqual({ kind: 'memory' });
    expect(settingsOf(['--data', 'x.json']).storage).toEqual({ kind: 'file', file: 'x.json' });
    expect(settingsOf(['x.json']).storage).toEqual({ kind: 'file', file: 'x.json' });
    expect(settingsOf(['--test-mode']).storage).toEqual({ kind: 'memory' });
    vi.stubEnv('DATABASE_URL', '');
    expect(settingsOf([]).storage).toEqual({ kind: 'file', file: './data/animals.json' });
  });

  it('refuses a database URL that is not postgres:// without repeating it (it may hold a password)', () => {
    const flag = refusal(['--database', 'mysql://store:hunter2@h/d', '--memory']);
    expect(flag.message).toMatch(/--database and --memory exclude each other/);
    expect(refusal(['--database', 'mysql://store:hunter2@h/d']).message).toBe('--database must be a postgres:// or postgresql:// URL');
    vi.stubEnv('DATABASE_URL', 'store:hunter2@h/d');
    expect(refusal([]).message).toBe('DATABASE_URL must be a postgres:// or postgresql:// URL');
  });

  it('takes the cursor secret from --cursor-secret or ANIMAL_STORE_CURSOR_SECRET, the flag first, never repeating a short one', () => {
    expect(settingsOf(['--cursor-secret', 'a-secret-of-16-chars']).cursorSecret).toEqual({
      value: 'a-secret-of-16-chars',
      source: '--cursor-secret',
    });
    vi.stubEnv('ANIMAL_STORE_CURSOR_SECRET', 'from-the-environment');
    expect(settingsOf([]).cursorSecret?.value).toBe('from-the-environment');
    expect(settingsOf(['--cursor-secret', 'the-flag-wins-here']).cursorSecret?.value).toBe('the-flag-wins-here');
    expect(refusal(['--cursor-secret-file', 'f']).message).toMatch(
      /--cursor-secret-file and ANIMAL_STORE_CURSOR_SECRET exclude each other/,
    );
    vi.stubEnv('ANIMAL_STORE_CURSOR_SECRET', 'shortone');
    expect(refusal([]).message).toBe('ANIMAL_STORE_CURSOR_SECRET must be at least 16 characters');
    expect(refusal(['--cursor-secret', 'tiny']).message).toBe('--cursor-secret must be at least 16 characters');
  });

  it('keeps test mode in memory, with its delay', () => {
    expect(settingsOf(['--test-mode', '--seed', 'seed.json', '--delay', '250'])).toMatchObject({
      storage: { kind: 'memory' },
      seedFile: 'seed.json',
      testMode: true,
      delay: 250,
    });
    expect(settingsOf(['--test-mode', '--memory']).storage).toEqual({ kind: 'memory' });
  });

  it('serves the kiosk in the browser only when asked, and never under a base path it owns', () => {
    expect(settingsOf([]).browserKiosk).toBe(false);
    expect(settingsOf(['--browser-kiosk']).browserKiosk).toBe(true);
    expect(refusal(['--browser-kiosk', '--base-path', '/kiosk/v1']).message).toBe(
      '--browser-kiosk serves the kiosk app under /kiosk/, so --base-path cannot be /kiosk/v1',
    );
  });
});

describe('animal-store command line: init-worker', () => {
  it('takes the folder to write the worker script into, and refuses none with the usage of init-worker', () => {
    expect(parseCommandLine(['init-worker', 'public'])).toEqual({ kind: 'init-worker', settings: { folder: 'public' } });
    const missing = refusal(['init-worker']);
    expect(missing.message).toBe('init-worker needs DIR: the folder your dev server serves, such as public/');
    expect(missing.command).toBe('init-worker');
    expect(refusal(['init-worker', 'a', 'b']).message).toMatch(/^unexpected argument "b"|too many arguments/);
  });
});

describe('animal-store command line: copy', () => {
  const copyOf = (argv: string[]) => {
    const request = parseCommandLine(['copy', ...argv]);
    if (request.kind !== 'copy') throw new Error(`expected copy, got ${request.kind}`);
    return request.settings;
  };

  it('reads --from, --to, --replace and --schema', () => {
    expect(copyOf(['--from', './data/animals.json', '--to', 'postgres://h/d'])).toEqual({
      from: './data/animals.json',
      to: 'postgres://h/d',
      replace: false,
    });
    expect(copyOf(['--to', 'b.json', '--replace', '--from', 'a.json'])).toEqual({ from: 'a.json', to: 'b.json', replace: true });
    expect(copyOf(['--from', 'a.json', '--to', 'postgres://h/d', '--schema', 'shop'])).toMatchObject({ schema: 'shop' });
  });

  it.each([
    [['--to', 'b.json'], /^copy needs --from/],
    [['--from', 'a.json'], /^copy needs --to/],
    [['--from', '', '--to', 'b.json'], /^copy needs --from/],
    [['--from', 'a.json', '--to', 'b.json', 'extra'], /unexpected argument "extra"/],
    [['--from', 'a.json', '--to', 'b.json', '--force'], /unknown option '--force'/],
    [['--from', 'a.json', '--to', 'b.json', '--replase'], /unknown option '--replase'; did you mean --replace\?/],
  ])('refuses %j with a usage error that shows the copy usage', (argv, message) => {
    const error = refusal(['copy', ...argv]);
    expect(error.message).toMatch(message);
    expect(error.command).toBe('copy');
  });
});
