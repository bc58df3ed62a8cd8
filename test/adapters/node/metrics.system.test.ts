import { createHash } from 'node:crypto';
import { register as globalRegistry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnimalStoreServer, createPrometheusMetrics, openJsonFileStorage, serve } from '../../../adapters/node.js';
import { tempDataFile } from '../../support/tempFolder.js';

const KEYS = ['metrics-key-one-0123', 'metrics-key-two-0123'];
const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);
const as = (key: string) => ({ authorization: `Bearer ${key}` });

let server: AnimalStoreServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server on a data file, with metrics wired as the CLI wires them. */
const serveWithMetrics = async () => {
  const metrics = await createPrometheusMetrics();
  const storage = await openJsonFileStorage({ file: tempDataFile(), onCommit: metrics.observeCommit });
  server = await serve({ storage, keys: KEYS, port: 0, metrics });
  return server;
};

/** The value of one sample line, such as `name{label="x"} 3`. */
const sample = (exposition: string, line: string): number | undefined => {
  const found = exposition.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
};

describe('Prometheus metrics (serve({ metrics }))', () => {
  it('serves /metrics to key holders only, with Error bodies otherwise', async () => {
    const { url } = await serveWithMetrics();
    const origin = new URL(url).origin;
    const anonymous = await fetch(`${origin}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await anonymous.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((await fetch(`${origin}/metrics`, { headers: as('not-a-key-0123456789') })).status).toBe(401);
    const posted = await fetch(`${origin}/metrics`, { method: 'POST', headers: as(KEYS[0]!) });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');

    const scrape = await fetch(`${origin}/metrics`, { headers: as(KEYS[0]!) });
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scrape.headers.get('cache-control')).toBe('no-store');
    const head = await fetch(`${origin}/metrics`, { method: 'HEAD', headers: as(KEYS[0]!) });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('counts requests by operation and status, their latency, commits, and deprecated calls per key fingerprint', async () => {
    const { url } = await serveWithMetrics();
    const post = (name: string) =>
      fetch(`${url}/pets`, {
        method: 'POST',
        headers: { ...as(KEYS[0]!), 'content-type': 'application/json' },
        body: JSON.stringify({ name, categoryId: 1 }),
      });
    expect((await Promise.all(['Rex', 'Tom', 'Kiki'].map(post))).map((response) => response.status)).toEqual([201, 201, 201]);
    await fetch(`${url}/pets`, { headers: as(KEYS[0]!) });
    await fetch(`${url}/pets`);
    await fetch(`${url}/nowhere`, { headers: as(KEYS[0]!) });
    for (const key of [KEYS[0]!, KEYS[0]!, KEYS[1]!]) await fetch(`${url}/pets/1`, { headers: as(key) });

    const exposition = await (await fetch(`${new URL(url).origin}/metrics`, { headers: as(KEYS[1]!) })).text();
    expect(sample(exposition, 'animal_store_http_requests_total{operation="createPet",status="201"}')).toBe(3);
    expect(sample(exposition, 'animal_store_http_requests_total{operation="listPets",status="200"}')).toBe(1);
    expect(sample(exposition, 'animal_store_http_requests_total{operation="listPets",status="401"}')).toBe(1);
    expect(sample(exposition, 'animal_store_http_requests_total{operation="none",status="404"}')).toBe(1);
    expect(sample(exposition, 'animal_store_http_requests_total{operation="getPet",status="200"}')).toBe(3);
    expect(sample(exposition, 'animal_store_http_request_duration_seconds_count{operation="createPet"}')).toBe(3);
    expect(sample(exposition, 'animal_store_http_request_duration_seconds_bucket{le="+Inf",operation="listPets"}')).toBe(2);
    // Three creates, in one durable write or more (group commit).
    expect(sample(exposition, 'animal_store_storage_commit_batch_size_sum')).toBe(3);
    const commits = sample(exposition, 'animal_store_storage_commit_duration_seconds_count{result="ok"}');
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(sample(exposition, 'animal_store_storage_commit_batch_size_count')).toBe(commits);
    expect(sample(exposition, `animal_store_deprecated_calls_total{key_fingerprint="${fingerprint(KEYS[0]!)}"}`)).toBe(2);
    expect(sample(exposition, `animal_store_deprecated_calls_total{key_fingerprint="${fingerprint(KEYS[1]!)}"}`)).toBe(1);
    // prom-client's default process metrics.
    expect(exposition).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(exposition).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    for (const key of KEYS) expect(exposition).not.toContain(key);
  });

  it("keeps its metrics in a registry of its own, not prom-client's global one", async () => {
    await serveWithMetrics();
    expect(await globalRegistry.metrics()).not.toContain('animal_store_');
  });
});
