/** @module `--log-format json` and `--metrics` on the real CLI. */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForOutput } from '../../support/nodeProcess.js';
import { killLeftoverProcesses, runCli } from '../../support/startCli.js';

afterEach(killLeftoverProcesses);

const KEY = 'logs-and-metrics-key-01';
const authed = { authorization: `Bearer ${KEY}` };
const WITHOUT_PROM_CLIENT = fileURLToPath(new URL('withoutPromClient.ts', import.meta.url));

/** Every line of a stream, parsed: each must be one JSON object. */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('animal-store --log-format json', () => {
  it('writes one JSON object per line: the start, each answer with its request id and duration, never a key', async () => {
    const cli = runCli(['--memory', '--port', '0', '--api-key', KEY, '--log-format', 'json']);
    const [, url] = await waitForOutput(cli, /"message":"listening on (http:\/\/[^"]+)"/);
    const sent = await fetch(`${url}/pets`, { headers: { ...authed, 'x-request-id': 'checkout-42' } });
    expect(sent.headers.get('x-request-id')).toBe('checkout-42');
    const made = await fetch(`${url}/pets/1`, { headers: { ...authed, 'x-request-id': 'has spaces, and "quotes"' } });
    const madeId = made.headers.get('x-request-id');
    expect(madeId).toMatch(/^[A-Za-z0-9_-]+-\d+$/);
    await fetch(`${url}/pets`, { headers: { authorization: 'Bearer not-the-key-0123456' } });
    await waitForOutput(cli, /"status":401/);

    const [start, ...access] = jsonLines(cli.stdout());
    expect(start).toEqual({ time: expect.any(String), level: 'info', message: `listening on ${url}`, url });
    expect(access).toEqual([
      expect.objectContaining({
        level: 'info',
        requestId: 'checkout-42',
        method: 'GET',
        path: '/v1/pets',
        status: 200,
        operation: 'listPets',
      }),
      expect.objectContaining({ requestId: madeId, path: '/v1/pets/1', status: 404, operation: 'getPet' }),
      expect.objectContaining({ path: '/v1/pets', status: 401, operation: 'listPets' }),
    ]);
    for (const entry of access) {
      expect(Object.keys(entry)).toEqual(['time', 'level', 'requestId', 'method', 'path', 'status', 'operation', 'key', 'durationMs']);
      expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
      expect(entry.durationMs).toBeGreaterThan(0);
    }
    // Sub-millisecond precision: durations are not whole milliseconds.
    expect(access.some((entry) => !Number.isInteger(entry.durationMs))).toBe(true);
    // Warnings (here: the deprecated call) go to stderr, in JSON too.
    expect(jsonLines(cli.stderr())).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^deprecated GET/) }),
    ]);
    for (const key of [KEY, 'not-the-key-0123456']) expect(cli.stdout() + cli.stderr()).not.toContain(key);

    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
    expect(jsonLines(cli.stdout()).at(-1)).toMatchObject({
      level: 'info',
      message: 'SIGTERM: finishing in-flight requests, then stopping',
    });
  });

  it('says why it cannot start in JSON too, exit code 1', async () => {
    const cli = runCli(['--memory', '--port', '0', '--api-key', 'short', '--log-format', 'json']);
    expect((await cli.exited).code).toBe(1);
    expect(jsonLines(cli.stderr())).toEqual([
      { time: expect.any(String), level: 'error', message: expect.stringMatching(/^the API key from --api-key #1 has 5 characters/) },
    ]);
  });
});

describe('animal-store --metrics', () => {
  it('serves Prometheus metrics at /metrics behind the API keys', async () => {
    const cli = runCli(['--memory', '--port', '0', '--api-key', KEY, '--quiet', '--metrics']);
    const [, url] = await waitForOutput(cli, /listening on (http:\/\/\S+)/);
    const origin = new URL(url!).origin;
    await fetch(`${url}/pets`, { headers: authed });
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    const scrape = await fetch(`${origin}/metrics`, { headers: authed });
    expect(scrape.status).toBe(200);
    const exposition = await scrape.text();
    expect(exposition).toMatch(/^animal_store_http_requests_total\{operation="listPets",status="200"\} 1$/m);
    expect(exposition).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('says how to install prom-client when it is missing, exit code 1', async () => {
    const cli = runCli(['--memory', '--port', '0', '--api-key', KEY, '--metrics'], { preload: [WITHOUT_PROM_CLIENT] });
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toBe(
      'animal-store: Prometheus metrics need the prom-client package, an optional peer dependency of animal-store: npm install prom-client\n',
    );
  });
});
