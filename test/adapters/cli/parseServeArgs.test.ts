import { describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../../../adapters/cli/parseServeArgs.js';

const settingsOf = (argv: string[], env: Record<string, string | undefined> = {}) => {
  const request = parseServeArgs(argv, env);
  if (request.kind !== 'serve') throw new Error('expected serve');
  return request.settings;
};

describe('animal-store serve arguments', () => {
  it('has safe defaults: loopback, 8080, the JSON file, /v1, no keys yet', () => {
    expect(settingsOf(['serve'])).toEqual({
      host: '127.0.0.1',
      port: 8080,
      dataFile: './data/animals.json',
      keys: [],
      basePath: '/v1',
      corsOrigins: [],
      quiet: false,
    });
  });

  it('reads every flag, repeatable keys and origins, and keys from the environment', () => {
    const settings = settingsOf(
      [
        'serve',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--memory',
        '--api-key',
        'a',
        '--api-key',
        'b',
        '--base-path',
        '/api/',
        '--cors',
        'http://localhost:5173',
        '--cors',
        'https://kiosk.example',
        '--quiet',
      ],
      { ANIMAL_STORE_API_KEYS: 'c, d,,a' },
    );
    expect(settings).toEqual({
      host: '0.0.0.0',
      port: 0,
      dataFile: undefined,
      keys: ['a', 'b', 'c', 'd'],
      basePath: '/api',
      corsOrigins: ['http://localhost:5173', 'https://kiosk.example'],
      quiet: true,
    });
  });

  it('takes the port from PORT when no --port is given', () => {
    expect(settingsOf(['serve'], { PORT: '9000' }).port).toBe(9000);
    expect(settingsOf(['serve', '--port', '1'], { PORT: '9000' }).port).toBe(1);
  });

  it('answers --help', () => {
    expect(parseServeArgs(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseServeArgs(['serve', '--help'], {})).toEqual({ kind: 'help' });
  });

  it.each([
    [[], /command/],
    [['start'], /unknown command/],
    [['serve', 'extra'], /unexpected argument/],
    [['serve', '--prot', '1'], /prot/],
    [['serve', '--port', '65536'], /port/],
    [['serve', '--port', 'http'], /port/],
    [['serve', '--port'], /port/],
    [['serve', '--data', 'x.json', '--memory'], /exclude/],
    [['serve', '--base-path', 'v1'], /base-path/],
    [['serve', '--cors', 'localhost'], /--cors/],
    [['serve', '--cors', 'http://localhost:5173/path'], /--cors/],
    [['serve', '--api-key', 'has space'], /API key/],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(() => parseServeArgs(argv, {})).toThrow(UsageError);
    expect(() => parseServeArgs(argv, {})).toThrow(message);
  });

  it('keeps animals in PostgreSQL with --database or DATABASE_URL, the flag first', () => {
    const url = 'postgres://store@db.internal:5432/animals';
    expect(settingsOf(['serve', '--database', url])).toMatchObject({ databaseUrl: url, dataFile: undefined });
    expect(settingsOf(['serve'], { DATABASE_URL: url })).toMatchObject({ databaseUrl: url, dataFile: undefined });
    expect(settingsOf(['serve', '--database', url], { DATABASE_URL: 'postgres://other/x' }).databaseUrl).toBe(url);
    expect(settingsOf(['serve', '--database', 'postgresql://h/d']).databaseUrl).toBe('postgresql://h/d');
  });

  it('lets an explicit --data or --memory win over a DATABASE_URL in the environment', () => {
    const env = { DATABASE_URL: 'postgres://store@db/animals' };
    expect(settingsOf(['serve', '--memory'], env)).toMatchObject({ databaseUrl: undefined, dataFile: undefined });
    expect(settingsOf(['serve', '--data', 'x.json'], env)).toMatchObject({ databaseUrl: undefined, dataFile: 'x.json' });
    expect(settingsOf(['serve'], { DATABASE_URL: '' })).toMatchObject({ databaseUrl: undefined, dataFile: './data/animals.json' });
  });

  it('takes the cursor secret from --cursor-secret or ANIMAL_STORE_CURSOR_SECRET, the flag first', () => {
    expect(settingsOf(['serve']).cursorSecret).toBeUndefined();
    expect(settingsOf(['serve', '--cursor-secret', 'a-secret-of-16-chars']).cursorSecret).toBe('a-secret-of-16-chars');
    expect(settingsOf(['serve'], { ANIMAL_STORE_CURSOR_SECRET: 'from-the-environment' }).cursorSecret).toBe('from-the-environment');
    expect(
      settingsOf(['serve', '--cursor-secret', 'the-flag-wins-here'], { ANIMAL_STORE_CURSOR_SECRET: 'from-the-environment' }).cursorSecret,
    ).toBe('the-flag-wins-here');
  });

  it.each([
    [['serve', '--database', 'postgres://h/d', '--memory'], {}, /--database and --memory exclude each other/],
    [['serve', '--database', 'postgres://h/d', '--data', 'x.json'], {}, /--database and --data exclude each other/],
    [['serve', '--database', 'mysql://h/d'], {}, /--database must be a postgres:\/\/ or postgresql:\/\/ URL/],
    [['serve'], { DATABASE_URL: 'h/d' }, /DATABASE_URL must be a postgres:\/\//],
    [['serve', '--cursor-secret', 'short'], {}, /--cursor-secret must be at least 16 characters/],
    [['serve'], { ANIMAL_STORE_CURSOR_SECRET: 'short' }, /ANIMAL_STORE_CURSOR_SECRET must be at least 16 characters/],
  ])('refuses %j with %j as a usage error', (argv, env, message) => {
    expect(() => parseServeArgs(argv, env)).toThrow(UsageError);
    expect(() => parseServeArgs(argv, env)).toThrow(message);
  });

  it('refuses a PORT that is not a port', () => {
    expect(() => parseServeArgs(['serve'], { PORT: 'eighty' })).toThrow(/PORT/);
  });
});
