import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AnimalStoreError } from '../../../core/AnimalStoreError.js';
import { type BearerCheck, type Caller, createBearerCheck } from '../../../core/auth/createBearerCheck.js';
import { type Sha256, webCryptoSha256 } from '../../../core/digest.js';

// Node's hash answers at once, as the server's does; Web Crypto answers later, as on other runtimes.
const nodeSha256: Sha256 = Object.assign((data: Uint8Array) => hash('sha256', data, 'buffer'), {
  text: (text: string) => hash('sha256', text, 'buffer'),
});

const MANY = 100_000;
const keyNumber = (n: number) => `store-key-${String(n).padStart(8, '0')}`;
const manyKeys = Array.from({ length: MANY }, (_, n) => keyNumber(n));

/** What a check answers: the caller, or the 401 (or 400) it throws, as the client sees it. */
const outcomeOf = async (check: BearerCheck, authorization: string | null): Promise<Caller | object> => {
  try {
    return await check(authorization);
  } catch (error) {
    if (!(error instanceof AnimalStoreError)) throw error;
    return { code: error.code, status: error.status, message: error.message, headers: error.headers };
  }
};

const REFUSED: Array<[string, string | null]> = [
  ['no header', null],
  ['an empty header', ''],
  ['an unknown key', 'Bearer store-key-99999999'],
  ['a short key', 'Bearer short'],
  ['a prefix of a key', `Bearer ${keyNumber(42).slice(0, -1)}`],
  ['a key with a suffix', `Bearer ${keyNumber(42)}x`],
  ['another scheme', `Basic ${btoa('user:pass')}`],
  ['a scheme without a token', 'Bearer'],
  ['a token with spaces', `Bearer ${keyNumber(42)} extra`],
  ['a malformed token', 'Bearer store-key-0000004"2'],
  ['two keys', `Bearer ${keyNumber(1)}, Bearer ${keyNumber(2)}`],
];

describe.each([
  ['a hash that answers at once', nodeSha256],
  ['Web Crypto', webCryptoSha256],
])('the bearer check among 100,000 keys, with %s', (_hash, sha256) => {
  const many = createBearerCheck(manyKeys, sha256);

  it('finds the key presented, wherever it stands in the list', async () => {
    for (const index of [0, 1, 4_242, 50_000, MANY - 1]) {
      const caller = (await outcomeOf(many, `Bearer ${keyNumber(index)}`)) as Caller;
      expect(caller.keyIndex).toBe(index);
      expect(caller.keyFingerprint).toBe(hash('sha256', keyNumber(index), 'hex').slice(0, 12));
    }
  });

  it.each(REFUSED)('refuses %s exactly as a check with one key does', async (_case, authorization) => {
    const one = createBearerCheck([keyNumber(0)], sha256);
    const expected = await outcomeOf(one, authorization);
    expect(expected).toHaveProperty('code');
    expect(await outcomeOf(many, authorization)).toEqual(expected);
  });
});

describe('the bearer check', () => {
  it('answers a key listed twice as its first position, as before', async () => {
    const check = createBearerCheck([keyNumber(1), keyNumber(2), keyNumber(1)], nodeSha256);
    expect(((await check(`Bearer ${keyNumber(1)}`)) as Caller).keyIndex).toBe(0);
  });

  it('keeps telling an unknown token (invalid_token) from a missing one (bare challenge)', async () => {
    const check = createBearerCheck([keyNumber(0)], nodeSha256);
    expect(await outcomeOf(check, 'Bearer store-key-99999999')).toMatchObject({
      status: 401,
      message: 'The API key is not valid.',
      headers: { 'www-authenticate': 'Bearer realm="animal-store", error="invalid_token"' },
    });
    expect(await outcomeOf(check, null)).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer realm="animal-store"' } });
  });
});
