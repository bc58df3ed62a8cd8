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

  it('refuses a PORT that is not a port', () => {
    expect(() => parseServeArgs(['serve'], { PORT: 'eighty' })).toThrow(/PORT/);
  });
});
