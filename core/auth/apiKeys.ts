/** @module API keys as operators write them down, and keys made when none is configured. */
import { toBase64Url } from '../base64url.js';

/** Reads a comma-separated key list (`ANIMAL_STORE_API_KEYS=k1,k2`), ignoring blanks around and between keys. */
export const parseApiKeyList = (list: string | undefined): string[] =>
  (list ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');

/** A random key of 192 bits, base64url: for a service started without one, which never runs open. */
export const generateApiKey = (): string => toBase64Url(crypto.getRandomValues(new Uint8Array(24)));
