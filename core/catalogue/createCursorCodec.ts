/** @module Opaque, tamper-evident page cursors for keyset pagination. */
import { LRUCache } from 'lru-cache';
import { AnimalStoreError } from '../AnimalStoreError.js';
import { fromBase64Url, toBase64Url } from '../base64url.js';
import { equalInConstantTime, type Sha256, sha256Text } from '../digest.js';
import { encodeUtf8 } from '../encodeUtf8.js';
import { type MaybePromise, whenReady } from '../MaybePromise.js';
import { PET_STATUSES, type PetStatus } from '../schemas/PetStatus.js';

/** Where a page ends: the last id it showed and the status filter it was made for. */
export interface CursorPosition {
  after: number;
  status: PetStatus | undefined;
}

/**
 * Encodes positions into cursors and back; `decode` throws a 400 for any cursor it did not
 * make. Both answer at once when the hash does, or when the cursor is one made or checked
 * lately; else a promise.
 */
export interface CursorCodec {
  encode(position: CursorPosition): MaybePromise<string>;
  decode(cursor: string, status: PetStatus | undefined): MaybePromise<CursorPosition>;
}

const SEAL_BYTES = 12;
/** How many cursors are kept each way: a walk of pages, and the first pages of each filter, fit. */
const CURSORS_KEPT = 1024;
const PAYLOAD = /^1:([1-9][0-9]{0,15}):([a-z]*)$/;

const invalidCursor = (reason: string) =>
  new AnimalStoreError('validation_failed', `The cursor ${reason}; follow the Link header of a page, or start again without a cursor.`, {
    details: [{ path: 'cursor', message: reason }],
  });

/**
 * Makes a cursor codec. A cursor is `payload.seal`: the payload names the position, the
 * seal is a truncated SHA-256 over a secret and the payload, so a cursor the service did
 * not make, or one edited by hand, is refused rather than silently trusted. Cursors hold no
 * state on the server and stay valid across restarts with the same secret.
 */
export const createCursorCodec = (secret: string, sha256: Sha256): CursorCodec => {
  const seal = (payload: string): MaybePromise<Uint8Array> =>
    whenReady(sha256Text(sha256, `${secret}\u0000${payload}`), (digest) => digest.subarray(0, SEAL_BYTES));

  // A cursor depends only on its position, and the same few positions (the end of the first
  // page, above all) are asked for again and again: keep the last ones made. A client walking
  // the pages presents, a moment later, the very cursor just made for it: keep the way back
  // too, so a cursor this codec made or already checked is not sealed again. Equal text
  // means the same cursor, so nothing a client could forge passes this way.
  const made = new LRUCache<string, string>({ max: CURSORS_KEPT });
  const known = new LRUCache<string, CursorPosition>({ max: CURSORS_KEPT });

  return {
    encode({ after, status }) {
      const payload = `1:${after}:${status ?? ''}`;
      return (
        made.get(payload) ??
        whenReady(seal(payload), (sealed) => {
          const cursor = `${toBase64Url(encodeUtf8(payload))}.${toBase64Url(sealed)}`;
          made.set(payload, cursor);
          known.set(cursor, Object.freeze({ after, status }));
          return cursor;
        })
      );
    },
    decode(cursor, status) {
      const ofFilter = (position: CursorPosition) => {
        if (position.status !== status) throw invalidCursor('was made for a different status filter');
        return position;
      };
      const position = known.get(cursor);
      return position === undefined ? whenReady(unseal(cursor), ofFilter) : ofFilter(position);
    },
  };

  /** Checks the seal of a cursor not seen lately, and keeps it once it holds. */
  function unseal(cursor: string): MaybePromise<CursorPosition> {
    const [payloadPart, sealPart, ...rest] = cursor.length <= 128 ? cursor.split('.') : [];
    const payloadBytes = payloadPart === undefined ? undefined : fromBase64Url(payloadPart);
    const presentedSeal = sealPart === undefined ? undefined : fromBase64Url(sealPart);
    if (!payloadBytes || !presentedSeal || rest.length > 0) throw invalidCursor('is not a cursor this service made');
    const payload = String.fromCharCode(...payloadBytes);
    return whenReady(seal(payload), (sealed) => checked(cursor, payload, presentedSeal, sealed));
  }

  /** The position a cursor names, once its seal is found to be the one its payload should carry. */
  function checked(cursor: string, payload: string, presentedSeal: Uint8Array, sealed: Uint8Array): CursorPosition {
    if (!equalInConstantTime(presentedSeal, sealed)) throw invalidCursor('is not a cursor this service made');
    const match = PAYLOAD.exec(payload);
    const cursorStatus = match?.[2] === '' ? undefined : (match?.[2] as PetStatus | undefined);
    if (!match || (cursorStatus !== undefined && !PET_STATUSES.includes(cursorStatus))) {
      throw invalidCursor('is not a cursor this service made');
    }
    const position = Object.freeze({ after: Number(match[1]), status: cursorStatus });
    known.set(cursor, position);
    return position;
  }
};
