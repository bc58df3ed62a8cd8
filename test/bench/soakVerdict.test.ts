import { describe, expect, it } from 'vitest';
import { judgeSoak, type SoakSample } from './soakVerdict.js';

/** Ten minutes of samples every 10 s, RSS given by minute, p99 10 ms. */
const soak = (rssAt: (minute: number) => number): SoakSample[] =>
  Array.from({ length: 61 }, (_, n) => ({
    minute: n / 6,
    rssMiB: rssAt(n / 6),
    answers: { create: 50, replay: 5, wrongKey: 2000, page: 400, health: 20 },
    p99Ms: { create: 10, replay: 10, wrongKey: 10, page: 10, health: 10, all: 10 },
    unexpected: 0,
    unexpectedByKind: {},
    skipped: 0,
    slowClientsCut: 10,
  }));

describe('the soak verdict', () => {
  it('calls RSS flat when it levels off after the warm-up, however much the warm-up took', () => {
    const verdict = judgeSoak(
      soak((minute) => (minute < 2 ? 60 + 10 * minute : 80 + 0.2 * minute)),
      2,
    );
    expect(verdict.flat).toBe(true);
    expect(verdict.summary).toMatch(/^RSS flat after warm-up: 80\.\d → 81\.\d MiB/);
  });

  it('calls RSS not flat when it keeps climbing after the warm-up', () => {
    const verdict = judgeSoak(
      soak((minute) => 80 + 3 * minute),
      2,
    );
    expect(verdict.flat).toBe(false);
    expect(verdict.slopeMiBPerMinute).toBeCloseTo(3);
    expect(verdict.summary).toMatch(/^RSS NOT flat/);
  });
});
