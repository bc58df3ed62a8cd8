import { describe, expect, it } from 'vitest';
import type { BenchResults, WorkloadResult } from './results.js';
import { svgChart } from './svgChart.js';

/** A results.json with one workload of the given ratios: what the chart reads of it. */
const resultsWith = (ratios: Pick<WorkloadResult, 'ratioToBaseline' | 'ratioToFloor'>) =>
  ({
    workloads: [
      {
        id: 'list100sold@large',
        operation: 'list100sold',
        scale: 'large',
        storage: 'file',
        animals: 1_000_000,
        label: 'GET /v1/pets?limit=100&status=sold · 1M',
        contenders: {},
        ...ratios,
      },
    ],
  }) as unknown as BenchResults;

describe('the bench chart', () => {
  it('escapes what it writes as text, so the SVG stays well-formed (a ratio below 0.001 reads "< 0.001×")', () => {
    const svg = svgChart(
      resultsWith({ ratioToBaseline: { ours: 2.1, floor: 0.9, jsonServer: 0.0002 }, ratioToFloor: { ours: 2.3 } }),
      'a & b',
    );
    expect(svg).toContain('&lt; 0.001×');
    expect(svg).toContain('GET /v1/pets?limit=100&amp;status=sold');
    // Outside tags, text holds no raw "<" or "&" that is not an entity.
    const texts = [...svg.matchAll(/>([^<]*)</g)].map((match) => match[1]!);
    for (const text of texts) expect(text).not.toMatch(/&(?!(lt|gt|amp|quot|apos);)/);
    expect(svg.match(/</g)?.length).toBe(svg.match(/<[/a-z!?]/g)?.length);
  });
});
