/** @module Bearer credential checking (RFC 6750), keeping only digests of the keys. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { equalInConstantTime, type Sha256, sha256Text, toHex } from '../digest.js';

/** Who called: which configured key matched, named without revealing it. */
export interface Caller {
  /** The position of the matching key in the configured list, from 0. */
  keyIndex: number;
  /** The first 12 hex digits of the key's SHA-256: safe to log, useless to an attacker. */
  keyFingerprint: string;
}

/**
 * Checks an Authorization header: the caller, or a 401 thrown. With a hash that answers at
 * once (Node's), so does the check; with one that answers later (Web Crypto), it answers a
 * promise of the caller, or rejects with the 401.
 */
export type BearerCheck = (authorization: string | null) => Caller | Promise<Caller>;

const REALM = 'Bearer realm="animal-store"';

const unauthorized = (message: string, tokenWasSent: boolean) =>
  new AnimalStoreError('unauthorized', message, {
    headers: { 'www-authenticate': tokenWasSent ? `${REALM}, error="invalid_token"` : REALM },
  });

// RFC 7235: the scheme is case-insensitive; RFC 6750: one b64token after it.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The shortest API key accepted unless a service is told otherwise: 16 characters. */
export const MINIMUM_KEY_LENGTH = 16;

/** A configured key as the check keeps it: its digest, and the caller it names (position, fingerprint for logs). */
interface KnownKey {
  digest: Uint8Array;
  caller: Readonly<Caller>;
}

/**
 * The keys' digests, found by the digest: one lookup however many keys there are. A digest's
 * first six bytes, read as a number, choose the bucket: a number is the cheapest Map key
 * there is (a string made of the digest cost more than the rest of the check), and two
 * keys whose digests share 48 bits are so unlikely that a bucket holds one key all but always.
 */
type KnownKeys = ReadonlyMap<number, readonly KnownKey[]>;

const bucketOf = (digest: Uint8Array): number =>
  digest[0]! * 2 ** 40 + digest[1]! * 2 ** 32 + ((digest[2]! << 24) >>> 0) + (digest[3]! << 16) + (digest[4]! << 8) + digest[5]!;

// What a miss is compared with, so a miss does the same constant-time work as a hit.
const NO_DIGEST = new Uint8Array(32);
const NO_KEYS: readonly KnownKey[] = [];

/**
 * The caller whose key has the digest `presented`; else a 401. The Map finds the candidates
 * by digest, and only they are compared in constant time (always at least one comparison):
 * what the lookup's timing could reveal is a SHA-256 digest of the guess, which tells
 * nothing about any key, and the cost no longer grows with the number of keys.
 */
const callerOf = (presented: Uint8Array, keys: KnownKeys): Caller => {
  const candidates = keys.get(bucketOf(presented)) ?? NO_KEYS;
  let found: KnownKey | undefined;
  if (candidates.length === 0) equalInConstantTime(presented, NO_DIGEST);
  for (const candidate of candidates) if (equalInConstantTime(presented, candidate.digest)) found = candidate;
  if (found === undefined) throw unauthorized('The API key is not valid.', true);
  return found.caller;
};

/** Indexes the keys' digests; a key listed twice answers as its first position. */
const indexKeys = (digests: readonly Uint8Array[]): KnownKeys => {
  const known = new Map<number, KnownKey[]>();
  for (const [keyIndex, digest] of digests.entries()) {
    const bucket = known.get(bucketOf(digest)) ?? [];
    if (bucket.some((kept) => equalInConstantTime(kept.digest, digest))) continue;
    // One caller per key, shared by all its requests: frozen, so no request can change another's.
    bucket.push({ digest, caller: Object.freeze({ keyIndex, keyFingerprint: toHex(digest.subarray(0, 6)) }) });
    known.set(bucketOf(digest), bucket);
  }
  return known;
};

/**
 * Makes a bearer check for a set of keys. Keys are hashed once, here, and dropped; a
 * presented token is hashed, its digest looked up among the keys' digests, and the one it
 * finds compared in constant time. A check costs the same with 1 key or 100,000, and
 * nothing in its timing tells how much of a guess was right.
 *
 * @param minimumKeyLength The shortest key accepted (16 by default); tests may lower it.
 */
export const createBearerCheck = (keys: readonly string[], sha256: Sha256, minimumKeyLength = MINIMUM_KEY_LENGTH): BearerCheck => {
  if (keys.length === 0) throw new TypeError('animal-store needs at least one API key.');
  if (keys.some((key) => !BEARER.test(`Bearer ${key}`))) {
    throw new TypeError('An API key must be a non-empty token of letters, digits and -._~+/ (optionally ending in =).');
  }
  const short = keys.findIndex((key) => key.length < minimumKeyLength);
  if (short !== -1) {
    throw new TypeError(
      `API key #${short + 1} has ${keys[short]!.length} characters; keys must have at least ${minimumKeyLength}, so they cannot be guessed. ` +
        'Make one with: openssl rand -base64 24',
    );
  }
  // Each key's digest and, for logs, its fingerprint: computed once here, not per request.
  let known: KnownKeys | undefined;
  const knowing = Promise.all(keys.map((key) => sha256Text(sha256, key))).then((digests) => (known = indexKeys(digests)));

  return (authorization) => {
    // A Web Request joins repeated headers with ", "; a bearer token never holds a comma.
    if (authorization?.includes(',')) {
      throw new AnimalStoreError('validation_failed', 'Send the Authorization header once, with one key.', {
        details: [{ path: 'Authorization', message: 'must be given once' }],
      });
    }
    if (authorization === null || authorization.trim() === '') {
      throw unauthorized('Send your API key in the Authorization header: "Authorization: Bearer <key>".', false);
    }
    const match = BEARER.exec(authorization);
    if (!match) {
      throw unauthorized(
        'The Authorization header must read "Bearer <key>", with a key of letters, digits and -._~+/.',
        /^bearer\s+\S/i.test(authorization),
      );
    }
    const presented = sha256Text(sha256, match[1]!);
    if (known !== undefined && !(presented instanceof Promise)) return callerOf(presented, known);
    return Promise.all([presented, knowing]).then(([digest, keys]) => callerOf(digest, keys));
  };
};
