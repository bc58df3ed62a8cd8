import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServerToExit, tempDataFile } from '../../support/serverProcess.js';

const CASES: [what: string, content: string, problem: string][] = [
  ['does not parse', '{"format":1,"nextId":2,"pets":[{"id":1,', 'not valid JSON'],
  [
    'holds a duplicate id',
    '{"format":1,"nextId":3,"pets":[{"id":1,"name":"A","categoryId":1,"status":"sold"},{"id":1,"name":"B","categoryId":1,"status":"sold"}]}',
    'pets[1].id repeats the id 1',
  ],
];

describe('the real server on a damaged data file', () => {
  for (const [what, content, problem] of CASES) {
    it(`Should refuse to start on a file that ${what}, name the file and the problem, and leave it byte for byte`, async () => {
      const file = tempDataFile();
      fs.writeFileSync(file, content);
      const { code, stderr } = await runServerToExit(file);
      expect(code).toBe(1);
      expect(stderr).toContain(file);
      expect(stderr).toContain(problem);
      expect(fs.readFileSync(file, 'utf8')).toBe(content);
    });
  }

  it('Should refuse to start on a data file that is a symlink to a volume that did not mount, and create nothing', async () => {
    const file = tempDataFile();
    const target = path.join(path.dirname(file), 'volume', 'animals.json');
    fs.symlinkSync(target, file);
    const { code, stderr } = await runServerToExit(file);
    expect(code).toBe(1);
    expect(stderr).toContain(`${file} is a symbolic link to ${target}, which does not exist`);
    expect(fs.existsSync(path.dirname(target))).toBe(false);
  });
});
