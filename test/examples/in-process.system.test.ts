/** @module The in-process example runs to its end and shows typed calls, pages and errors. */
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverExamples, runExample } from './runExample.js';

afterEach(killLeftoverExamples);

describe('examples/in-process', () => {
  it('creates animals, walks the pages of available ones and reports typed errors', async () => {
    const { code, stdout, stderr } = await runExample('examples/in-process/main.ts');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('created #5 Mochi (available)');
    expect(stdout).toContain('available, page 1: Biscuit, Pepper');
    expect(stdout).toContain('available, page 2: Mochi');
    expect(stdout).toContain('sold: Juniper');
    expect(stdout).toContain('by hand: 3 then 2 animals');
    expect(stdout).toContain('import row 17 is #6 both times: true');
    expect(stdout).toContain('pet 2 is Nimbus, pending');
    expect(stdout).toMatch(/create a bad animal: validation_failed \(400\)/);
    expect(stdout).toContain('  - stauts: is not a known field');
    expect(stdout).toContain('  - name: must not be only white space');
    expect(stdout).toMatch(/get animal 99: not_found \(404\)/);
  });
});
