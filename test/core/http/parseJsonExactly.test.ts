/**
 * Proves the fast reading of JSON bodies changes nothing: for any text, parseJsonExactly
 * gives what lossless-json with exact numbers gives (the same values, numbers, LosslessNumber
 * objects, key order and prototypes), or throws its error with its message.
 */
import fc from 'fast-check';
import { isSafeNumber, LosslessNumber, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJsonExactly } from '../../../core/http/parseJsonExactly.js';

/** The reading the service used before: lossless-json, numbers kept exactly. */
const lossless = (text: string): unknown =>
  parse(text, undefined, (number: string) => (isSafeNumber(number) ? Number(number) : new LosslessNumber(number)));

/** A value written down with everything a caller could tell apart: key order, -0, LosslessNumber, prototypes. */
const describeValue = (value: unknown): unknown => {
  if (value instanceof LosslessNumber) return { lossless: value.value };
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : value;
  if (Array.isArray(value)) return value.map(describeValue);
  if (typeof value === 'object' && value !== null) {
    return {
      prototypeIsObject: Object.getPrototypeOf(value) === Object.prototype,
      entries: Object.keys(value).map((key) => [key, describeValue((value as Record<string, unknown>)[key])]),
    };
  }
  return value;
};

/** What a reading gives: the value described, or the error's class and message. */
const outcome = (read: (text: string) => unknown, text: string) => {
  try {
    return { value: describeValue(read(text)) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
};

const expectSameReading = (text: string) => expect(outcome(parseJsonExactly, text), text).toEqual(outcome(lossless, text));

/** Number literals, valid and not, that sit at the edges of what rounds. */
const numberText = fc.oneof(
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom(
    '9007199254740991',
    '9007199254740992',
    '-9007199254740993',
    '1e2',
    '1E400',
    '1.0',
    '3.0',
    '-0',
    '0.1',
    '01',
    '-',
    '1.',
    '.5',
    '1e',
  ),
);

/** Bodies: any JSON, objects with keys given twice, numbers of every kind, and near-JSON text. */
const body = fc.oneof(
  fc.json(),
  fc.json().map((text) => ` \n\t${text}\r\n`),
  numberText.map((number) => `{"name":"Rex","categoryId":${number}}`),
  fc
    .tuple(fc.constantFrom('a', 'b', '__proto__', '\\u0061', '1', '01'), fc.json(), fc.constantFrom('a', 'b', '__proto__'), fc.json())
    .map(([first, one, second, other]) => `{"${first}":${one},"${second}":${other}}`),
  fc.tuple(fc.json(), fc.nat({ max: 40 })).map(([text, cut]) => text.slice(0, Math.max(0, text.length - cut))),
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', '-', '.', 'e', ' ', '\\', 'a', 'null') }),
);

describe('parseJsonExactly', () => {
  it('Should read any text as lossless-json with exact numbers does, or fail with its error', () => {
    fc.assert(
      fc.property(body, (text) => {
        expectSameReading(text);
      }),
      { numRuns: 5_000 },
    );
  });

  it('Should read the edge cases alike: keys twice (equal values or not), __proto__, escapes, deep nesting, big and long numbers', () => {
    for (const text of [
      '{"name":"Rex","categoryId":7}',
      '{"name":"Rex","name":"Rex","categoryId":7}',
      '{"name":"Rex","name":"Max","categoryId":7}',
      '{"a":{"b":[1,2]},"a":{"b":[1,2]}}',
      '{"a":1,"\\u0061":1}',
      '{"a":1,"\\u0061":2}',
      '{"__proto__":{"x":1}}',
      '{"name":"Re\\"x:","categoryId":1}',
      '{"name":"\\ud800","categoryId":9007199254740991}',
      '{"categoryId":9007199254740993}',
      '{"categoryId":123456789012345}',
      '{"categoryId":1234567890123456}',
      '{"categoryId":7.0000000000000001}',
      `${'['.repeat(63)}1${']'.repeat(63)}`,
      `${'['.repeat(64)}1${']'.repeat(64)}`,
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      '"\u0001"',
      '[1,]',
      '{"a":1}x',
    ]) {
      expectSameReading(text);
    }
  });
});
