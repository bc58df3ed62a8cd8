/** @module Strong entity tags of answers, and the If-None-Match check (RFC 9110 §8.8.3, §13.1.2). */
import { toBase64Url } from '../base64url.js';
import { type Sha256, sha256Text } from '../digest.js';
import { whenReady } from '../MaybePromise.js';

/**
 * Makes the strong ETag of an answer from the bytes a client would otherwise fetch again:
 * at once when the hash answers at once (Node's), else a promise of it.
 */
export type EntityTagger = (text: string, link?: string) => string | Promise<string>;

/**
 * Creates a tagger: the tag is a digest of the body and of the `Link` header (a page whose
 * animals are unchanged but which gained a next page is a new representation), so any
 * change to either makes a new tag.
 */
export const createEntityTagger = (sha256: Sha256): EntityTagger => {
  const tagOfDigest = (digest: Uint8Array) => `"${toBase64Url(digest, 16)}"`;
  return (text, link) => {
    return whenReady(sha256Text(sha256, link === undefined ? text : `${text}\n${link}`), tagOfDigest);
  };
};

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Tells whether an If-None-Match header matches `tag`, so a GET may answer 304: `*`, or a
 * list holding the tag (weak comparison, as the RFC asks for this header).
 */
export const ifNoneMatchHolds = (header: string | null, tag: string): boolean => {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const opaque = tag.slice(1, -1);
  for (const match of header.matchAll(ENTITY_TAG)) if (match[1] === opaque) return true;
  return false;
};
