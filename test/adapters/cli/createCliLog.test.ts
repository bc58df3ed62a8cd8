import { describe, expect, it } from 'vitest';
import { createCliLog } from '../../../adapters/cli/createCliLog.js';
import { AnimalStoreError } from '../../../core/AnimalStoreError.js';

const NOW = Date.parse('2030-01-02T03:04:05.678Z');

const logOf = (format: 'text' | 'json', quiet = false) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const log = createCliLog({ format, quiet, out: (line) => stdout.push(line), err: (line) => stderr.push(line), now: () => NOW });
  return { log, stdout, stderr };
};

const entry = { method: 'GET', path: '/v1/pets', status: 200, milliseconds: 1.23456, operation: 'listPets', requestId: 'kF3x9Q-17' };

describe('the command line log', () => {
  it('writes one JSON object per answer on stdout: time, level, request id, method, path, status, operation, duration', () => {
    const { log, stdout, stderr } = logOf('json');
    log.access?.(entry);
    log.access?.({ method: 'GET', path: '/nowhere', status: 408, milliseconds: 0, operation: undefined });
    expect(stdout.map((line) => JSON.parse(line))).toEqual([
      {
        time: '2030-01-02T03:04:05.678Z',
        level: 'info',
        requestId: 'kF3x9Q-17',
        method: 'GET',
        path: '/v1/pets',
        status: 200,
        operation: 'listPets',
        key: null,
        durationMs: 1.235,
      },
      {
        time: '2030-01-02T03:04:05.678Z',
        level: 'info',
        requestId: null,
        method: 'GET',
        path: '/nowhere',
        status: 408,
        operation: null,
        key: null,
        durationMs: 0,
      },
    ]);
    expect(stderr).toEqual([]);
  });

  it('names the calling key in each access line by its name, never the key, in JSON and in text', () => {
    const json = logOf('json');
    json.log.access?.({ ...entry, key: 'kiosk-1' });
    expect(JSON.parse(json.stdout[0]!)).toMatchObject({ key: 'kiosk-1', operation: 'listPets' });
    const text = logOf('text');
    text.log.access?.({ ...entry, key: 'kiosk-1' });
    expect(text.stdout).toEqual(['2030-01-02T03:04:05.678Z GET /v1/pets 200 1.2ms kiosk-1']);
  });

  it('writes warnings and errors to stderr in JSON too, an unforeseen error with its stack, a known one without', () => {
    const { log, stdout, stderr } = logOf('json');
    log.warn('the key file is loose');
    log.error('GET /v1/pets failed', new Error('disk on fire'));
    log.error('storage failing', new AnimalStoreError('storage_unavailable', 'The disk is full (ENOSPC).'));
    log.info('listening on http://127.0.0.1:8080/v1', { url: 'http://127.0.0.1:8080/v1' });
    const [warning, failure, known] = stderr.map((line) => JSON.parse(line));
    expect(warning).toEqual({ time: '2030-01-02T03:04:05.678Z', level: 'warn', message: 'the key file is loose' });
    expect(failure).toMatchObject({
      level: 'error',
      message: 'GET /v1/pets failed',
      error: expect.stringMatching(/^Error: disk on fire\n\s+at /),
    });
    expect(known).toEqual({ time: '2030-01-02T03:04:05.678Z', level: 'error', message: 'storage failing' });
    expect(JSON.parse(stdout[0]!)).toEqual({
      time: '2030-01-02T03:04:05.678Z',
      level: 'info',
      message: 'listening on http://127.0.0.1:8080/v1',
      url: 'http://127.0.0.1:8080/v1',
    });
  });

  it('keeps the text format as it was, and --quiet silences the access log alone', () => {
    const { log, stdout, stderr } = logOf('text');
    log.access?.(entry);
    log.warn('careful');
    log.error('boom', new AnimalStoreError('storage_unavailable', 'full'));
    expect(stdout).toEqual(['2030-01-02T03:04:05.678Z GET /v1/pets 200 1.2ms']);
    expect(stderr).toEqual(['warning: careful', 'error: boom']);
    expect(logOf('text', true).log.access).toBeUndefined();
    expect(logOf('json', true).log.access).toBeUndefined();
  });
});
