/**
 * @module The served OpenAPI document lints clean under the rules API people run on
 * documents: Redocly's `recommended` and Spectral's `spectral:oas`, both run in process on
 * the very text the service serves.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { makeService } from '../helpers.js';

/** The document as a client downloads it, under a base path other than the default. */
const servedDocument = async () => {
  const { call } = makeService({ basePath: '/catalogue/v2' });
  const response = await call('/catalogue/v2/openapi.json', { key: null });
  expect(response.status).toBe(200);
  return response.text();
};

describe('the served OpenAPI document', () => {
  it("has no problem under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: await servedDocument(), absoluteRef: 'openapi.json', config });
    expect(problems.map(({ ruleId, message, location }) => `${ruleId} at ${location[0]?.pointer}: ${message}`)).toEqual([]);
  }, 30_000);

  it("has no problem under Spectral's spectral:oas", async () => {
    const spectral = new Spectral();
    // `extends: spectral:oas` in a .spectral.yaml: the ruleset's recommended rules.
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
    const results = await spectral.run(await servedDocument());
    expect(results.map(({ code, message, path }) => `${String(code)} at ${path.join('.')}: ${message}`)).toEqual([]);
    // Spectral loads its rulesets' functions at first use: seconds on a busy machine.
  }, 30_000);
});
