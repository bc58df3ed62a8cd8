import { describe, expect, it } from 'vitest';
import { whenReady, whenSettled } from '../../core/MaybePromise.js';

const boom = new Error('boom');

describe('whenReady', () => {
  it('goes on at once, without a promise, from a value that is there', () => {
    expect(whenReady(2, (value) => value * 3)).toBe(6);
  });

  it('goes on once a promise resolves, and answers a promise', async () => {
    const answer = whenReady(Promise.resolve(2), (value) => value * 3);
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBe(6);
  });

  it('throws what its continuation throws at once, and rejects with what it throws later', async () => {
    expect(() =>
      whenReady(1, () => {
        throw boom;
      }),
    ).toThrow(boom);
    await expect(
      whenReady(Promise.resolve(1), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });
});

describe('whenSettled', () => {
  const recover = (error: unknown) => `recovered from ${(error as Error).message}`;

  it('goes on at once from a value that is there, and once a promise resolves', async () => {
    expect(
      whenSettled(
        () => 2,
        (value) => `used ${value * 3}`,
        recover,
      ),
    ).toBe('used 6');
    await expect(
      whenSettled(
        () => Promise.resolve(2),
        (value) => `used ${value * 3}`,
        recover,
      ),
    ).resolves.toBe('used 6');
  });

  it('recovers from a throw at once, and from a rejection later', async () => {
    const thrown = whenSettled(
      () => {
        throw boom;
      },
      () => 'used',
      recover,
    );
    expect(thrown).toBe('recovered from boom');
    await expect(
      whenSettled(
        () => Promise.reject(boom),
        () => 'used',
        recover,
      ),
    ).resolves.toBe('recovered from boom');
  });

  it('does not recover from a failure of its continuation', async () => {
    expect(() =>
      whenSettled(
        () => 1,
        () => {
          throw boom;
        },
        recover,
      ),
    ).toThrow(boom);
    await expect(
      whenSettled(
        () => Promise.resolve(1),
        () => {
          throw boom;
        },
        recover,
      ),
    ).rejects.toBe(boom);
  });
});
