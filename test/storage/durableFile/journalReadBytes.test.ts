import { describe, expect, it } from 'vitest';
import { nodeFileSystem } from '../../../storage/durableFile/index.js';
import { Journal } from '../../../storage/durableFile/Journal.js';
import { tempDataFile } from '../../support/tempFolder.js';

describe('A journal gives back the text of changes it appended', () => {
  it('Should give each change its bytes at the spot its append answered, beyond ASCII too, and nothing past its end', async () => {
    const file = tempDataFile();
    const journal = await Journal.open(nodeFileSystem, file, file);
    const changes = ['{"a":1}', '{"name":"Zoë «quoted»"}', '{"c":3}'];
    const spots = [];
    for (const change of changes) spots.push(await journal.append(change));
    for (const [at, change] of changes.entries()) {
      const { generation, offset, length } = spots[at]!;
      expect(length).toBe(Buffer.byteLength(change));
      const bytes = await journal.readBytes(generation, offset, length);
      expect(bytes?.toString('utf8')).toBe(change);
    }
    const last = spots.at(-1)!;
    expect(await journal.readBytes(last.generation, last.offset, 100)).toBeUndefined();
    await journal.close();
  });

  it('Should find the lines a replacement kept where it put them, and give nothing of lines it dropped or of an emptied journal', async () => {
    const file = tempDataFile();
    const journal = await Journal.open(nodeFileSystem, file, file);
    const dropped = await journal.append('{"a":1}');
    const mark = journal.mark;
    const kept = await journal.append('{"b":2}');
    await journal.keepFrom(mark);
    expect(await journal.readBytes(dropped.generation, dropped.offset, 7)).toBeUndefined();
    expect((await journal.readBytes(kept.generation, kept.offset, 7))?.toString()).toBe('{"b":2}');
    const later = await journal.append('{"c":3}');
    expect((await journal.readBytes(later.generation, later.offset, 7))?.toString()).toBe('{"c":3}');
    // A journal emptied (as a replacement that keeps nothing is) forgets every spot before.
    await journal.keepFrom(journal.mark);
    expect(await journal.readBytes(kept.generation, kept.offset, 7)).toBeUndefined();
    const next = await journal.append('{"d":4}');
    await journal.clear();
    expect(await journal.readBytes(next.generation, next.offset, 7)).toBeUndefined();
    expect(await journal.readBytes(later.generation, later.offset, 7)).toBeUndefined();
    await journal.close();
  });
});
