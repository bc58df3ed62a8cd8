/**
 * @module The test-app example's own vitest suite passes when run as its README says, on
 * its own config (the root suite only includes test/, so it never runs those tests itself).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverExamples, REPO_ROOT, runNodeProgram } from './runExample.js';

afterEach(killLeftoverExamples);

/** The vitest that `npx vitest` runs: the package's bin, by its place in node_modules. */
const VITEST = join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

interface JsonReport {
  success: boolean;
  numTotalTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { title: string; status: string }[] }[];
}

describe('examples/test-app', () => {
  it('passes its suite against a seeded, resettable catalogue with injected faults', async () => {
    const { code, stdout, stderr } = await runNodeProgram(VITEST, {
      args: ['run', '--root', 'examples/test-app', '--reporter=json'],
    });
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as JsonReport;
    expect(report.success).toBe(true);
    expect(report.numFailedTests).toBe(0);
    const passed = report.testResults.flatMap((file) => file.assertionResults).filter((test) => test.status === 'passed');
    expect(passed.map((test) => test.title)).toEqual(
      expect.arrayContaining([
        'starts every test from the seed again',
        'retries a read that failed once',
        'shows a message instead of hanging when the catalogue is too slow',
      ]),
    );
    expect(passed).toHaveLength(report.numTotalTests);
  });
});
