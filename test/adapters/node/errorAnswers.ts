/** @module Checks an answer read off the wire against the Error body every failure must carry. */
import { expect } from 'vitest';
import type { RawAnswer } from './rawHttp.js';

/** Text that would betray a stack trace or the server's files. */
export const LEAK = /\n\s+at |\bat [\w.<>]+ \(|node:internal|\/work\/|\/home\/|\/tmp\/|\.ts:\d+|\.js:\d+/;

/**
 * Asserts an answer is the Error body with `status` and `code`, sent as JSON with nosniff,
 * telling nothing of the server's insides; resolves with the parsed body.
 */
export const expectErrorAnswer = (answer: RawAnswer | undefined, status: number, code: string) => {
  expect(answer, 'an answer').toBeDefined();
  expect(answer!.status).toBe(status);
  expect(answer!.headers['content-type']).toMatch(/^application\/json/);
  expect(answer!.headers['x-content-type-options']).toBe('nosniff');
  expect(answer!.body).not.toMatch(LEAK);
  const body = JSON.parse(answer!.body) as {
    code: string;
    message: string;
    status: number;
    details?: Array<{ path: string; message: string }>;
  };
  expect(body).toMatchObject({ code, status });
  expect(typeof body.message).toBe('string');
  return body;
};
