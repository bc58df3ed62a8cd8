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

/** What a key may do: `read` (list, get, a kiosk's sync status), `create` (POST /pets), `sync` (leases, push, pull). */
export type Scope = 'read' | 'create' | 'sync';

/** Every scope, in the order messages list them. A key given without scopes has all of them. */
export const SCOPES: readonly Scope[] = ['read', 'create', 'sync'];

/**
 * An API key with what it may do and a name for logs, metrics and the fleet view. A plain
 * string key is `{ key }`: every scope, named by its fingerprint.
 */
export interface ApiKey {
  /** The key itself, sent as `Authorization: Bearer <key>`. */
  key: string;
  /** What the key may do; every scope when left out. */
  scopes?: readonly Scope[];
  /** A name for logs, metrics and the fleet view (1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit). */
  name?: string;
}

/** What a key's name may hold: safe in a log line and as a Prometheus label value. */
export const KEY_NAME_FORMAT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Whether `word` is a scope. */
export const isScope = (word: string): word is Scope => (SCOPES as readonly string[]).includes(word);
