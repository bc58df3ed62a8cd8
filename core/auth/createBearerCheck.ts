/** @module Bearer credential checking (RFC 6750), keeping only digests of the keys. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { equalInConstantTime, type Sha256, sha256Text, toHex } from '../digest.js';
import { type ApiKey, isScope, KEY_NAME_FORMAT, SCOPES, type Scope } from './apiKeys.js';

/** Who called: which configured key matched, named without revealing it. */
export interface Caller {
  /** The position of the matching key in the configured list, from 0. */
  keyIndex: number;
  /** The first 12 hex digits of the key's SHA-256: safe to log, useless to an attacker. */
  keyFingerprint: string;
  /** The key's name, or its fingerprint when it has none: what logs, metrics and the fleet view show. */
  name: string;
  /** What the key may do. */
  scopes: readonly Scope[];
  /** Aborted once the key is withdrawn (the keys were replaced without it): its waiting pulls end then. */
  withdrawn: AbortSignal;
}

/** Whether `caller` may do everything: every scope. */
export const hasEveryScope = (caller: Caller): boolean => caller.scopes.length === SCOPES.length;

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
  /** Ends the caller's `withdrawn` signal. */
  withdraw: AbortController;
  /** The key's name and scopes, to tell an unchanged key from one given other rights. */
  rights: string;
}

/**
 * The keys' digests, found by the digest: one lookup however many keys there are. A digest's
 * first six bytes, read as a number, choose the bucket: a number is the cheapest Map key
 * there is (a string made of the digest cost more than the rest of the check), and two
 * keys whose digests share 48 bits are so unlikely that a bucket holds one key all but always.
 */
export type KnownKeys = ReadonlyMap<number, readonly KnownKey[]>;

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
const callerOfDigest = (presented: Uint8Array, keys: KnownKeys): Caller => {
  const candidates = keys.get(bucketOf(presented)) ?? NO_KEYS;
  let found: KnownKey | undefined;
  if (candidates.length === 0) equalInConstantTime(presented, NO_DIGEST);
  for (const candidate of candidates) if (equalInConstantTime(presented, candidate.digest)) found = candidate;
  if (found === undefined) throw unauthorized('The API key is not valid.', true);
  return found.caller;
};

/** A key as the index takes it: its text, scopes and name, checked. */
interface GivenKey {
  key: string;
  scopes: readonly Scope[];
  name: string | undefined;
}

/**
 * Indexes the keys' digests; a key listed twice answers as its first position. A key that
 * `previous` holds with the same name and scopes keeps its caller (and so its requests in
 * flight and waiting pulls go on); the others get new callers.
 */
const indexKeys = (given: readonly GivenKey[], digests: readonly Uint8Array[], previous: KnownKeys | undefined): KnownKeys => {
  const known = new Map<number, KnownKey[]>();
  for (const [keyIndex, digest] of digests.entries()) {
    const bucket = known.get(bucketOf(digest)) ?? [];
    if (bucket.some((kept) => equalInConstantTime(kept.digest, digest))) continue;
    const { scopes, name } = given[keyIndex]!;
    const rights = `${name ?? ''} ${scopes.join(' ')}`;
    const before = previous?.get(bucketOf(digest))?.find((old) => equalInConstantTime(old.digest, digest));
    if (before !== undefined && before.rights === rights && before.caller.keyIndex === keyIndex) {
      bucket.push(before);
    } else {
      const keyFingerprint = toHex(digest.subarray(0, 6));
      const withdraw = new AbortController();
      // One caller per key, shared by all its requests: frozen, so no request can change another's.
      const caller = Object.freeze({
        keyIndex,
        keyFingerprint,
        name: name ?? keyFingerprint,
        scopes: Object.freeze([...scopes]),
        withdrawn: withdraw.signal,
      });
      bucket.push({ digest, caller, withdraw, rights });
    }
    known.set(bucketOf(digest), bucket);
  }
  return known;
};

/** Every key of an index, in the order configured. */
export const knownCallers = (keys: KnownKeys): Caller[] =>
  [...keys.values()]
    .flat()
    .map(({ caller }) => caller)
    .sort((one, other) => one.keyIndex - other.keyIndex);

/**
 * Ends the callers of `before` that `after` no longer holds as they were (withdrawn keys,
 * and keys given another name or other scopes): their waiting pulls end.
 */
export const withdrawReplaced = (before: KnownKeys, after: KnownKeys): void => {
  const kept = new Set<KnownKey>([...after.values()].flat());
  for (const old of [...before.values()].flat()) {
    if (kept.has(old)) continue;
    const stays = after.get(bucketOf(old.digest))?.some((key) => equalInConstantTime(key.digest, old.digest)) ?? false;
    old.withdraw.abort(stays ? WITHDRAWN_CHANGED : WITHDRAWN_REMOVED);
  }
};

/** A `withdrawn` signal's reason when the key is no longer accepted. */
export const WITHDRAWN_REMOVED = 'removed';
/** A `withdrawn` signal's reason when the key is still accepted, with another name, scopes or position. */
export const WITHDRAWN_CHANGED = 'changed';

/** Checks configured keys: their format, length, scopes and names; throws a TypeError naming the first wrong one. */
const checkKeys = (keys: readonly (string | ApiKey)[], minimumKeyLength: number): GivenKey[] => {
  if (keys.length === 0) throw new TypeError('animal-store needs at least one API key.');
  return keys.map((entry, position) => {
    const { key, scopes = SCOPES, name } = typeof entry === 'string' ? { key: entry } : entry;
    if (typeof key !== 'string' || !BEARER.test(`Bearer ${key}`)) {
      throw new TypeError('An API key must be a non-empty token of letters, digits and -._~+/ (optionally ending in =).');
    }
    if (key.length < minimumKeyLength) {
      throw new TypeError(
        `API key #${position + 1} has ${key.length} characters; keys must have at least ${minimumKeyLength}, so they cannot be guessed. ` +
          'Make one with: openssl rand -base64 24',
      );
    }
    const unknown = scopes.find((scope) => !isScope(scope));
    if (unknown !== undefined || scopes.length === 0) {
      throw new TypeError(
        `API key #${position + 1} has ${unknown === undefined ? 'an empty list of scopes' : `the unknown scope ${JSON.stringify(String(unknown).slice(0, 32))}`}; ` +
          `scopes are ${SCOPES.join(', ')} (leave them out for every scope).`,
      );
    }
    if (name !== undefined && !KEY_NAME_FORMAT.test(name)) {
      throw new TypeError(
        `API key #${position + 1} has the name ${JSON.stringify(String(name).slice(0, 70))}; a name is 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit.`,
      );
    }
    return { key, scopes: SCOPES.filter((scope) => scopes.includes(scope)), name };
  });
};

/** A bearer check and the index it answers from, once the keys' digests are known. */
export interface IndexedBearerCheck {
  check: BearerCheck;
  /** The keys' digests and callers. */
  known: Promise<KnownKeys>;
}

/**
 * Makes a bearer check for a set of keys, and its index (`createBearerCheck` without the
 * index). Callers of `previous` whose key is given again unchanged are kept.
 */
export const indexBearerCheck = (
  keys: readonly (string | ApiKey)[],
  sha256: Sha256,
  minimumKeyLength = MINIMUM_KEY_LENGTH,
  previous?: KnownKeys,
): IndexedBearerCheck => {
  const given = checkKeys(keys, minimumKeyLength);
  // Each key's digest and, for logs, its fingerprint: computed once here, not per request.
  let known: KnownKeys | undefined;
  const knowing = Promise.all(given.map(({ key }) => sha256Text(sha256, key))).then(
    (digests) => (known = indexKeys(given, digests, previous)),
  );

  const check: BearerCheck = (authorization) => {
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
    if (known !== undefined && !(presented instanceof Promise)) return callerOfDigest(presented, known);
    return Promise.all([presented, knowing]).then(([digest, keys]) => callerOfDigest(digest, keys));
  };
  return { check, known: knowing };
};

/**
 * Makes a bearer check for a set of keys: plain strings (every scope) or `ApiKey`s with
 * scopes and a name. Keys are hashed once, here, and dropped; a presented token is hashed,
 * its digest looked up among the keys' digests, and the one it finds compared in constant
 * time. A check costs the same with 1 key or 100,000, and nothing in its timing tells how
 * much of a guess was right.
 *
 * @param minimumKeyLength The shortest key accepted (16 by default); tests may lower it.
 */
export const createBearerCheck = (keys: readonly (string | ApiKey)[], sha256: Sha256, minimumKeyLength = MINIMUM_KEY_LENGTH): BearerCheck =>
  indexBearerCheck(keys, sha256, minimumKeyLength).check;
