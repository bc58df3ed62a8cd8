/** @module The request head checks: the path comes from the target alone, and Host and Authorization are single and well-formed. */
import { describe, expect, it } from 'vitest';
import { isValidHost, readRequestHead, targetPathAndQuery } from '../../../adapters/node/readRequestHead.js';

const headers = (...lines: Array<[string, string]>) => lines.flat();

describe('targetPathAndQuery', () => {
  it('keeps an origin-form target as it is, query included', () => {
    expect(targetPathAndQuery('/v1/pets?limit=2&status=sold')).toBe('/v1/pets?limit=2&status=sold');
  });

  it('reduces an absolute-form target (RFC 9112 §3.2.2) to its path and query', () => {
    expect(targetPathAndQuery('http://example.com/v1/pets?limit=2')).toBe('/v1/pets?limit=2');
    expect(targetPathAndQuery('HTTPS://example.com:8443/healthz')).toBe('/healthz');
  });

  it('never lets a target name another host: `//evil.example/x` stays a path', () => {
    expect(targetPathAndQuery('//evil.example/v1/pets')).toBe('//evil.example/v1/pets');
  });

  it('refuses asterisk-form, authority-form and anything that is not a path or an http URL', () => {
    for (const target of ['*', 'example.com:443', 'ftp://example.com/x', 'v1/pets', '', 'http://exa mple.com/']) {
      expect(targetPathAndQuery(target), target).toBeUndefined();
    }
  });
});

describe('isValidHost', () => {
  it('accepts names, IPv4 and IPv6 addresses, with a port up to 65535', () => {
    for (const host of [
      'example.com',
      'example.com:8080',
      'localhost:',
      '127.0.0.1',
      '[::1]',
      '[::1]:65535',
      '[v1.fe80::a+en1]',
      'a%41b',
    ]) {
      expect(isValidHost(host), host).toBe(true);
    }
  });

  it('refuses a space, an unclosed bracket, a bad escape, a port beyond 65535, and / \\ # ? @', () => {
    for (const host of ['a b', '[::1', '%zz', 'x:99999', 'x/v1/pets/1#', 'x\\y', 'x#', 'x?y', 'user@x', '[::1]x', 'x:8o', '[nothing]']) {
      expect(isValidHost(host), host).toBe(false);
    }
  });
});

describe('readRequestHead', () => {
  it('gives the path and query of a well-formed request', () => {
    expect(readRequestHead('/v1/pets?limit=1', headers(['Host', 'example.com'], ['Authorization', 'Bearer k']))).toEqual({
      pathAndQuery: '/v1/pets?limit=1',
    });
  });

  it('takes the path from the target, never from Host: `Host: x/v1/pets/1#` is a 400, not a route', () => {
    const { answer } = readRequestHead('/healthz', headers(['Host', 'x/v1/pets/1#']));
    expect(answer).toMatchObject({ status: 400, code: 'validation_failed', details: [{ path: 'Host' }] });
  });

  it('refuses two Authorization headers, which node:http would silently reduce to the first', () => {
    const { answer } = readRequestHead(
      '/v1/pets',
      headers(['Host', 'a'], ['Authorization', 'Bearer one'], ['authorization', 'Bearer two']),
    );
    expect(answer).toMatchObject({ status: 400, code: 'validation_failed', details: [{ path: 'Authorization' }] });
  });

  it('refuses two Host headers, and an HTTP/1.1 request without one (RFC 9112 §3.2)', () => {
    expect(readRequestHead('/healthz', headers(['Host', 'a'], ['HOST', 'b'])).answer?.details?.[0]?.path).toBe('Host');
    expect(readRequestHead('/healthz', []).answer?.details?.[0]?.path).toBe('Host');
    expect(readRequestHead('/healthz', [], '1.0')).toEqual({ pathAndQuery: '/healthz' });
  });

  it('ignores the value of Host for an absolute-form target, whose authority stands in for it', () => {
    expect(readRequestHead('http://example.com/healthz', headers(['Host', 'a b']))).toEqual({ pathAndQuery: '/healthz' });
  });

  it('quotes at most a short prefix of what was sent', () => {
    const { answer } = readRequestHead('/healthz', headers(['Host', `bad host ${'x'.repeat(10_000)}`]));
    expect(answer!.message.length).toBeLessThan(200);
  });
});
