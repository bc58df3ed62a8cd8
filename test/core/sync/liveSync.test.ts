import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/index.js';
import { errorOf, KEY, makeService } from '../helpers.js';

const KIOSK = 'kiosk-key-00000001';
const READER = 'reader-key-0000001';

const fleetService = () =>
  makeService({
    keys: [KEY, { key: KIOSK, scopes: ['sync'], name: 'kiosk-1' }, { key: READER, scopes: ['read'], name: 'lobby' }],
  });

const json = (body: unknown, key = KIOSK) => ({
  method: 'POST',
  key,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('live pulls (wait)', () => {
  it('Should answer a waiting pull as soon as an animal arrives after its checkpoint, with that animal', async () => {
    const { call, seed } = fleetService();
    const [first] = await seed([{ name: 'Rex', categoryId: 1 }]);
    let settled = false;
    const waiting = call(`/v1/sync/pull?checkpoint=${first!.id}&wait=30`, { key: KIOSK }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    const [second] = await seed([{ name: 'Tom', categoryId: 2 }]);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ pets: [second], checkpoint: second!.id });
  });

  it('Should answer at once when animals follow the checkpoint, and after the wait with an empty batch when none arrive', async () => {
    const { call, seed } = fleetService();
    const [rex] = await seed([{ name: 'Rex', categoryId: 1 }]);
    expect(await (await call('/v1/sync/pull?checkpoint=0&wait=60', { key: KIOSK })).json()).toEqual({ pets: [rex], checkpoint: rex!.id });
    const started = performance.now();
    expect(await (await call(`/v1/sync/pull?checkpoint=${rex!.id}&wait=1`, { key: KIOSK })).json()).toEqual({
      pets: [],
      checkpoint: rex!.id,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it.each(['61', '-1', '1.5', 'soon', ''])('Should refuse wait=%s with a 400 naming wait', async (wait) => {
    const { call } = fleetService();
    const body = await errorOf(await call(`/v1/sync/pull?wait=${wait}`, { key: KIOSK }));
    expect(body.code).toBe('validation_failed');
    expect(body.details?.map(({ path }) => path)).toEqual(['wait']);
  });

  it('Should end a waiting pull when the service stops (empty batch) and when its key is withdrawn (401)', async () => {
    const stopped = fleetService();
    const waiting = stopped.call('/v1/sync/pull?wait=60', { key: KIOSK });
    await new Promise((resolve) => setTimeout(resolve, 20));
    stopped.service.stop();
    expect(await (await waiting).json()).toEqual({ pets: [], checkpoint: 0 });

    const withdrawn = fleetService();
    const refused = withdrawn.call('/v1/sync/pull?wait=60', { key: KIOSK });
    const kept = withdrawn.call('/v1/sync/pull?wait=60', { key: KEY });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await withdrawn.service.keys.replace([KEY]);
    expect((await refused).status).toBe(401);
    const [rex] = await withdrawn.seed([{ name: 'Rex', categoryId: 1 }]);
    expect(((await (await kept).json()) as { pets: Pet[] }).pets).toEqual([rex]);
  });

  it('Should wake 200 waiting pulls with one create', async () => {
    const { call, seed } = fleetService();
    const waiting = Array.from({ length: 200 }, () => call('/v1/sync/pull?wait=30', { key: KIOSK }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [rex] = await seed([{ name: 'Rex', categoryId: 1 }]);
    const answers = await Promise.all(waiting.map(async (answer) => (await answer).json()));
    expect(answers).toEqual(Array.from({ length: 200 }, () => ({ pets: [rex], checkpoint: rex!.id })));
  });
});

describe('leases are bounded', () => {
  it('Should refuse a fifth unused block with 429 rate_limited and Retry-After, leasing nothing, and lease again once a block is used', async () => {
    const { call } = fleetService();
    const blocks: Array<{ first: number; last: number }> = [];
    for (let lease = 0; lease < 4; lease++) {
      const answer = await call('/v1/sync/leases', { method: 'POST', key: KIOSK });
      expect(answer.status).toBe(201);
      blocks.push(await answer.json());
    }
    const refused = await call('/v1/sync/leases', { method: 'POST', key: KIOSK });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await errorOf(refused)).message).toMatch(/4 leased blocks of ids from which nothing was pushed/);
    // Another key is not held back by this one's blocks.
    expect((await call('/v1/sync/leases', { method: 'POST', key: KEY })).status).toBe(201);
    const pet = { id: blocks[0]!.first, name: 'Kiosk cat', categoryId: 1, status: 'available' };
    expect((await call('/v1/sync/push', json({ pets: [pet] }))).status).toBe(200);
    const next = await call('/v1/sync/leases', { method: 'POST', key: KIOSK });
    expect(next.status).toBe(201);
    expect((await next.json()).first).toBeGreaterThan(blocks[3]!.last + 1000);
  });
});

describe('the fleet view', () => {
  it('Should show each sync key by name with its last lease, push and pull, animals pushed, blocks held and how far behind it is', async () => {
    const { call, seed } = fleetService();
    const block = (await (await call('/v1/sync/leases', { method: 'POST', key: KIOSK })).json()) as { first: number };
    await call('/v1/sync/push', json({ pets: [{ id: block.first, name: 'Kiosk cat', categoryId: 1, status: 'available' }] }));
    await call('/v1/sync/pull', { key: KIOSK });
    await seed([
      { name: 'Rex', categoryId: 1 },
      { name: 'Tom', categoryId: 1 },
    ]);
    const answer = await call('/v1/sync/kiosks');
    expect(answer.status).toBe(200);
    const { kiosks } = (await answer.json()) as { kiosks: Array<Record<string, unknown>> };
    expect(kiosks).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/^[0-9a-f]{12}$/), lastPush: null, pushed: 0, blocks: 0, behind: null }),
      {
        name: 'kiosk-1',
        lastLease: expect.stringMatching(/^\d{4}-/),
        lastPush: expect.stringMatching(/^\d{4}-/),
        lastPull: expect.stringMatching(/^\d{4}-/),
        pushed: 1,
        blocks: 1,
        unusedBlocks: 0,
        behind: 2,
      },
    ]);
    expect(JSON.stringify(kiosks)).not.toContain(KIOSK);
  });

  it('Should refuse the fleet view to keys without every scope', async () => {
    const { call } = fleetService();
    for (const key of [KIOSK, READER]) {
      const body = await errorOf(await call('/v1/sync/kiosks', { key }));
      expect(body.code).toBe('forbidden');
      expect(body.message).toMatch(/may not see the fleet/);
    }
  });
});
