/**
 * @module Turns flag values into settings. Each parser throws commander's
 * InvalidArgumentError, which commander words as "option '--port <PORT>' argument 'x' is
 * invalid. …" (or names the environment variable it came from). None of them is used for
 * a secret: commander's message repeats the value.
 */
import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';
import { quoteSchema } from '../../storage/postgres/schemaName.js';

/**
 * A port, 0 to 65535 (0 picks a free one). An empty value stays empty, for
 * `readServeSettings` to judge by its source: unset when it came from the environment
 * (`PORT=`), a mistake on the command line.
 */
export const parsePort = (text: string): number | '' => {
  if (text === '') return '';
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 65535) throw new InvalidArgumentError('A port is a number from 0 to 65535.');
  return Number(text);
};

/** A whole number of at least `minimum`, such as a limit in milliseconds or connections. */
export const wholeNumber =
  (minimum: number) =>
  (text: string): number => {
    const value = Number(text);
    if (!/^[0-9]{1,15}$/.test(text) || value < minimum) throw new InvalidArgumentError(`It must be a whole number, ${minimum} or more.`);
    return value;
  };

/** `--rate-limit LIMIT/SECONDS`: at most LIMIT requests per key in each window of SECONDS. */
export const parseRateLimit = (text: string): { limit: number; windowSeconds: number } => {
  const match = /^([0-9]{1,9})\/([0-9]{1,9})$/.exec(text);
  const [limit, windowSeconds] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (limit < 1 || windowSeconds < 1) {
    throw new InvalidArgumentError('Write LIMIT/SECONDS, two whole numbers of 1 or more: 600/60 allows 600 requests a minute per key.');
  }
  return { limit, windowSeconds };
};

/** A browser origin for CORS (scheme, host and port, no path), or `*`. */
export const parseOrigin = (text: string): string => {
  if (text === '*') return text;
  let origin: string | undefined;
  try {
    origin = new URL(text).origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin === 'null' || origin !== text) {
    throw new InvalidArgumentError('An origin is a scheme, host and optional port, such as http://localhost:5173 (no path), or *.');
  }
  return origin;
};

/** The path the operations live under: a leading slash and URL-safe segments; a trailing slash is dropped. */
export const parseBasePath = (text: string): string => {
  if (!/^(\/[A-Za-z0-9._~-]+)*\/?$/.test(text)) {
    throw new InvalidArgumentError('It must look like /v1: a leading slash, then URL-safe segments.');
  }
  return text.replace(/\/$/, '');
};

/** A PostgreSQL schema name, checked as the storage checks it. */
export const parseSchema = (text: string): string => {
  try {
    quoteSchema(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return text;
};

/** Collects a repeatable flag's values in order. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Collects a repeatable origin flag's values, each checked. */
export const collectOrigins = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), parseOrigin(value)];

/** A comma-separated list of IP addresses, such as `127.0.0.1,::1`; `none` for an empty one. */
export const parseAddressList = (text: string): string[] => {
  if (text.trim() === 'none') return [];
  const addresses = text.split(',').map((address) => address.trim());
  const wrong = addresses.find((address) => isIP(address) === 0);
  if (wrong !== undefined) {
    throw new InvalidArgumentError(
      `${JSON.stringify(wrong.slice(0, 60))} is not an IP address; write addresses such as 127.0.0.1,::1, or none.`,
    );
  }
  return addresses;
};
