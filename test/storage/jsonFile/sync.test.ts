import crypto from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { describeSyncContract } from '../syncContract.js';
import { describeSyncProperties } from '../syncProperty.js';

describeSyncContract('JSON-file storage', {
  create: () => openJsonFileStorage({ file: tempDataFile() }),
  async reopen(storage) {
    await storage.close();
    return openJsonFileStorage({ file: (storage as JsonFileStorage).file });
  },
});

describe('JSON-file storage syncing, whatever it is sent', () => {
  describeSyncProperties(
    'JSON-file storage',
    {
      create: () => openJsonFileStorage({ file: tempDataFile() }),
      async reopen(storage) {
        await storage.close();
        return openJsonFileStorage({ file: (storage as JsonFileStorage).file });
      },
    },
    80,
  );
});

describe('JSON-file storage syncing, on disk', () => {
  it('Should keep a hub’s leases and pushed animals, in arrival order, across a reopen', async () => {
    const file = tempDataFile();
    const hub = await openJsonFileStorage({ file });
    const own = await hub.create({ name: 'Rex', categoryId: 3, status: 'available' });
    const block = await hub.sync.lease('ab12', 10);
    const later = await hub.create({ name: 'Tom', categoryId: 3, status: 'available' });
    const pushed = { id: block.first, name: 'Kiosk', categoryId: 2, status: 'sold' } as const;
    await hub.sync.store('ab12', [pushed]);
    await hub.close();
    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(onDisk.pets.map(({ id }: { id: number }) => id)).toEqual([own.id, later.id, pushed.id]);
    expect(onDisk.sync).toEqual({ leases: [{ scope: 'ab12', first: block.first, last: block.last }] });

    const reopened = await openJsonFileStorage({ file });
    expect(await reopened.list({ after: later.id, limit: 10 })).toEqual([pushed]);
    await expect(reopened.sync.store('ab12', [{ ...pushed, id: block.last + 1 }])).rejects.toMatchObject({ code: 'forbidden' });
    expect((await reopened.create({ name: 'Max', categoryId: 1, status: 'pending' })).id).toBe(later.id + 1);
    await reopened.close();
  });

  it('Should write a hub’s lease list into a journal line once, then only the leases added, and start from such lines as from full ones', async () => {
    const file = tempDataFile();
    const hub = await openJsonFileStorage({ file });
    const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
    const blocks = [await hub.sync.lease('ab12', 10), await hub.sync.lease('cd34', 10)];
    await hub.create(rex);
    await hub.sync.store('ab12', [{ ...rex, id: blocks[0]!.first }]);
    const third = await hub.sync.lease('ab12', 10);
    await hub.create(rex);
    // A crash now leaves the document and these lines: a copy of the two, read as a start reads them.
    const lines = fs.readFileSync(`${file}.journal`, 'utf8').trim().split('\n');
    const crashed = tempDataFile();
    fs.copyFileSync(file, crashed);
    fs.copyFileSync(`${file}.journal`, `${crashed}.journal`);
    await hub.close();

    // The leases, the create, the push, the lease, the create: the first line holds the list,
    // the later leases' lines only their own block, the others nothing of it.
    const parsed = lines.map(
      (line) => JSON.parse(line.slice(line.indexOf(' ') + 1)) as { sync?: { leases: unknown[] }; leased?: unknown[] },
    );
    expect(parsed.map(({ sync }) => sync?.leases.length)).toEqual([1, undefined, undefined, undefined, undefined, undefined]);
    expect(parsed.map(({ leased }) => leased?.length)).toEqual([undefined, 1, undefined, undefined, 1, undefined]);
    const afterCrash = await openJsonFileStorage({ file: crashed });
    const leases = [...blocks, third].map(({ first, last }, at) => ({ scope: at === 1 ? 'cd34' : 'ab12', first, last }));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).sync).toEqual({ leases });
    await expect(afterCrash.sync.store('cd34', [{ ...rex, id: third.first }])).rejects.toMatchObject({ code: 'forbidden' });
    await afterCrash.sync.store('ab12', [{ ...rex, id: third.first }]);
    await afterCrash.close();
    expect(JSON.parse(fs.readFileSync(crashed, 'utf8')).sync).toEqual({ leases });
  });

  it('Should add a line’s leases once when the document holds them already (a crash between a whole write and cutting the journal)', async () => {
    const file = tempDataFile();
    const hub = await openJsonFileStorage({ file });
    const blocks = [];
    for (let count = 0; count < 4; count++) blocks.push(await hub.sync.lease(count % 2 === 0 ? 'ab12' : 'cd34', 10));
    // The lines of the three later leases, each adding its block: the journal a whole write
    // keeps, when they were appended while it ran (the first line, all of the list, was not).
    const added = fs.readFileSync(`${file}.journal`, 'utf8').split('\n').slice(1).join('\n');
    // A clean stop writes the document whole and empties the journal; the lines put back are that crash.
    await hub.close();
    fs.writeFileSync(`${file}.journal`, added);
    const reopened = await openJsonFileStorage({ file });
    expect(await reopened.sync.leasesOf?.('ab12')).toEqual({ blocks: 2, unused: 2 });
    expect((await reopened.sync.lease('cd34', 10)).first).toBe(blocks.at(-1)!.last + 1);
    await reopened.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).sync.leases).toHaveLength(5);
  });

  it('Should refuse to start on a journal line whose added leases are not leases, naming the line and the field', async () => {
    const file = tempDataFile();
    const hub = await openJsonFileStorage({ file });
    await hub.sync.lease('ab12', 10);
    await hub.sync.lease('ab12', 10);
    const crashed = tempDataFile();
    fs.copyFileSync(file, crashed);
    const lines = fs.readFileSync(`${file}.journal`, 'utf8').trim().split('\n');
    await hub.close();
    const body = lines[1]!.slice(lines[1]!.indexOf(' ') + 1).replace('"scope":"ab12"', '"scope":"not hex"');
    const digest = crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);
    fs.writeFileSync(`${crashed}.journal`, `${lines[0]}\n${digest} ${body}\n`);
    const before = fs.readFileSync(crashed);
    await expect(openJsonFileStorage({ file: crashed })).rejects.toThrow(
      /line 2 of its journal is not a valid change \(leased\.0\.scope must be the hex fingerprint/,
    );
    expect(fs.readFileSync(crashed)).toEqual(before);
  });

  it('Should lease past 200,000 leases, and write none of them with a create or a push', async () => {
    const file = tempDataFile();
    const leases = Array.from({ length: 200_000 }, (_, at) => ({
      scope: at % 2 === 0 ? 'ab12' : 'cd34',
      first: 1 + at * 10,
      last: 10 + at * 10,
    }));
    fs.writeFileSync(file, JSON.stringify({ format: 2, nextId: 2_000_001, pets: [], idempotencyKeys: [], sync: { leases } }));
    const hub = await openJsonFileStorage({ file });
    const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
    // A key of its own: the two others hold 100,000 blocks each from which nothing was pushed.
    const block = await hub.sync.lease('ef56', 10);
    expect(block.first).toBe(2_000_001);
    const journalBytes = () => fs.statSync(`${file}.journal`).size;
    const before = journalBytes();
    await hub.create(rex);
    await hub.sync.store('ef56', [{ ...rex, id: block.first }]);
    // The two lines: one animal each, and nothing of the 200,001 leases.
    expect(journalBytes() - before).toBeLessThan(600);
    await hub.close();
  });

  it('Should write as much for a kiosk’s create after a hundred blocks as after one, and start from its lines after a crash', async () => {
    const file = tempDataFile();
    const kiosk = await openJsonFileStorage({ file });
    const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
    await kiosk.sync.join('http://hub.example/v1');
    const lastLine = () => fs.readFileSync(`${file}.journal`, 'utf8').trim().split('\n').at(-1)!;
    const createLines: string[] = [];
    // As a replicator does: lease ahead, create, push (here, record it), for 100 blocks of 10 ids.
    for (let block = 0; block < 100; block++) {
      await kiosk.sync.addBlock({ first: 1_000 + block * 20, last: 1_009 + block * 20 });
      for (let count = 0; count < 10; count++) {
        await kiosk.create(rex);
        createLines.push(lastLine());
      }
      await kiosk.sync.markPushed((await kiosk.sync.unpushed(100)).through);
    }
    const crashed = tempDataFile();
    fs.copyFileSync(file, crashed);
    fs.copyFileSync(`${file}.journal`, `${crashed}.journal`);
    await kiosk.close();

    // Only the ids' digits may grow; every spent block was dropped, the last one stays.
    expect(createLines.at(-1)!.length).toBeLessThanOrEqual(createLines[0]!.length + 16);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).sync.kiosk).toMatchObject({ blocks: [{ first: 2_980, last: 2_989 }], nextId: 0 });
    const afterCrash = await openJsonFileStorage({ file: crashed });
    expect(await afterCrash.sync.kiosk()).toMatchObject({ blocks: [{ first: 2_980, last: 2_989 }], nextId: 0, pushedThrough: 2_989 });
    await expect(afterCrash.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    await expect(afterCrash.sync.addBlock({ first: 2_970, last: 2_979 })).rejects.toMatchObject({ code: 'sync_conflict' });
    await afterCrash.sync.addBlock({ first: 3_000, last: 3_009 });
    expect((await afterCrash.create(rex)).id).toBe(3_000);
    expect(await afterCrash.list({ after: 0, limit: 2_000 })).toHaveLength(1_001);
    await afterCrash.close();
  });

  it('Should refuse to open a syncing file whose ids repeat, naming the place', async () => {
    const file = tempDataFile();
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 2,
        nextId: 9,
        pets: [
          { id: 5, name: 'A', categoryId: 1, status: 'sold' },
          { id: 2, name: 'B', categoryId: 1, status: 'sold' },
          { id: 5, name: 'C', categoryId: 1, status: 'sold' },
        ],
        idempotencyKeys: [],
        sync: { leases: [] },
      }),
    );
    await expect(openJsonFileStorage({ file })).rejects.toThrow(/pets\[2\]\.id repeats the id 5/);
  });
});
