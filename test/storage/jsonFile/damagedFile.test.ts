import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DataFileError } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';

const animal = (id: number, extra: Record<string, unknown> = {}) => ({ id, name: `Animal ${id}`, categoryId: 1, status: 'sold', ...extra });
const file = (nextId: number, pets: unknown[]) => JSON.stringify({ format: 1, nextId, pets });

/** Each damaged content and the words that must name its first problem. */
const DAMAGED: [what: string, content: string, problem: string | RegExp][] = [
  ['text that is not JSON', '{"format":1,"nextId":3,\n"pets":[}', /not valid JSON .*line 2, column 9/],
  ['an empty file', '', 'it is empty'],
  ['JSON that is cut off', file(3, [animal(1), animal(2)]).slice(0, 60), /not valid JSON/],
  ['an array instead of an object', '[]', 'the file must be a JSON object'],
  ['an object without a format', JSON.stringify({ pets: [] }), 'format is missing'],
  ['another format version', JSON.stringify({ format: 3, nextId: 1, pets: [] }), 'format must be 1 or 2'],
  ['an unknown top-level field', JSON.stringify({ format: 1, nextId: 1, pets: [], owner: 'x' }), 'owner is not a known field'],
  ['pets that are not an array', JSON.stringify({ format: 1, nextId: 1, pets: {} }), 'pets must be an array'],
  ['a duplicate id', file(4, [animal(1), animal(2), animal(2)]), 'pets[2].id repeats the id 2 of pets[1]'],
  ['ids out of order', file(4, [animal(1), animal(3), animal(2)]), 'pets[2].id is 2, below the id 3 of pets[1]'],
  ['an animal with a bad category', file(4, [animal(1), animal(2, { categoryId: 0 })]), 'pets[1].categoryId must be a positive integer'],
  ['an animal without a name', file(2, [{ id: 1, categoryId: 1, status: 'sold' }]), 'pets[0].name is missing'],
  ['an animal with a blank name', file(2, [animal(1, { name: '   ' })]), 'pets[0].name must not be only white space'],
  [
    'an animal whose name holds a line break',
    file(2, [animal(1, { name: 'Rex\nthe second' })]),
    'pets[0].name must not hold control characters',
  ],
  ['an animal whose name holds a bidi override', file(2, [animal(1, { name: 'Rex\u202e' })]), 'pets[0].name must not hold bidirectional'],
  ['an animal whose name shows nothing', file(2, [animal(1, { name: '\u200b' })]), 'pets[0].name must hold at least one visible character'],
  ['an animal with an unknown status', file(2, [animal(1, { status: 'lost' })]), 'pets[0].status must be one of'],
  ['an animal with an unknown field', file(2, [animal(1, { colour: 'red' })]), 'pets[0].colour is not a known field'],
  [
    'an animal with a stray __proto__ field',
    '{"format":1,"nextId":2,"pets":[{"id":1,"name":"A","categoryId":1,"status":"sold","__proto__":{}}]}',
    'pets[0].__proto__ is not a known field',
  ],
  ['an animal that is not an object', file(3, [animal(1), 'Rex']), 'pets[1]'],
  ['a fractional id', file(3, [animal(1.5)]), 'pets[0].id must be an integer'],
  ['a nextId not above the highest id', file(2, [animal(1), animal(2)]), 'nextId is 2 but must be above the highest id, 2'],
  ['a missing nextId', JSON.stringify({ format: 1, pets: [] }), 'nextId is missing'],
];

describe('JSON-file storage opening a damaged file', () => {
  for (const [what, content, problem] of DAMAGED) {
    it(`Should refuse ${what}, naming the file and the problem, and leave the file byte for byte`, async () => {
      const path = tempDataFile();
      fs.writeFileSync(path, content);
      const before = fs.readFileSync(path);
      const error = await openJsonFileStorage({ file: path }).then(
        () => expect.unreachable('the damaged file opened'),
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(DataFileError);
      const { message } = error as DataFileError;
      expect(message).toContain(path);
      if (typeof problem === 'string') expect(message).toContain(problem);
      else expect(message).toMatch(problem);
      expect(fs.readFileSync(path).equals(before)).toBe(true);
      // Refusing the file also let go of it: the next attempt meets the same problem, not a lock.
      await expect(openJsonFileStorage({ file: path })).rejects.toThrow(message);
    });
  }

  it('Should name the first problem in file order, not the worst', async () => {
    const path = tempDataFile();
    fs.writeFileSync(path, file(9, [animal(1), animal(1), animal(3, { categoryId: -1 }), animal(4, { status: 'gone' })]));
    await expect(openJsonFileStorage({ file: path })).rejects.toThrow(/cannot be used: pets\[1\]\.id repeats the id 1 of pets\[0\]\./);
  });

  it('Should say on one line that the file was left as it is and what to do', async () => {
    const path = tempDataFile();
    fs.writeFileSync(path, '{oops');
    const error = (await openJsonFileStorage({ file: path }).catch((thrown: unknown) => thrown)) as Error;
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/left as it is; repair it or move it away/);
  });

  it('Should refuse a folder given as the data file, naming it', async () => {
    const path = tempDataFile();
    fs.mkdirSync(path);
    await expect(openJsonFileStorage({ file: path })).rejects.toThrow(new RegExp(`data file ${path} cannot be read`));
  });

  it('Should accept a file a person saved with a byte-order mark', async () => {
    const path = tempDataFile();
    fs.writeFileSync(path, `\uFEFF${file(2, [animal(1)])}`);
    const storage = await openJsonFileStorage({ file: path });
    expect(await storage.get(1)).toEqual(animal(1));
    await storage.close();
  });
});
