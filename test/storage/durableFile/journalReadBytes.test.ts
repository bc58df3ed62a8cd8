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
      const { generation, offset } = spots[at]!;
      const bytes = await journal.readBytes(generation, offset, Buffer.byteLength(change));
      expect(bytes?.toString('utf8')).toBe(change);
    }
    const last = spots.at(-1)!;
    expect(await journal.readBytes(last.generation, last.offset, 100)).toBeUndefined();
    await journal.close();
  });

  it('Should give nothing once the journal was emptied or replaced since the append', async () => {
    const file = tempDataFile();
    const journal = await Journal.open(nodeFileSystem, file, file);
    const first = await journal.append('{"a":1}');
    await journal.clear();
    expect(await journal.readBytes(first.generation, first.offset, 7)).toBeUndefined();
    const mark = journal.mark;
    const second = await journal.append('{"b":2}');
    await journal.append('{"c":3}');
    await journal.keepFrom(mark);
    // The replacement holds the same text elsewhere, in a journal of its own generation.
    expect(await journal.readBytes(second.generation, second.offset, 7)).toBeUndefined();
    const third = await journal.append('{"d":4}');
    expect((await journal.readBytes(third.generation, third.offset, 7))?.toString()).toBe('{"d":4}');
    await journal.close();
  });
});
