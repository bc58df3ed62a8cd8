/** @module The default total connection cap follows the open-file limit. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultMaxConnections, MAX_CONNECTIONS_CEILING, readOpenFileLimit } from '../../../adapters/node/defaultMaxConnections.js';
import { tempFolder } from '../../support/tempFolder.js';

const limitsFile = (openFiles: string) => {
  const file = join(tempFolder(), 'limits');
  writeFileSync(
    file,
    `Limit                     Soft Limit           Hard Limit           Units     \nMax processes             63413                63413                processes \nMax open files            ${openFiles}                 524288               files     \n`,
  );
  return file;
};

describe('the default total connection cap', () => {
  it('Should read the soft open-file limit as Linux reports it, and nothing where there is no such file', () => {
    expect(readOpenFileLimit(limitsFile('1024'))).toBe(1024);
    expect(readOpenFileLimit(limitsFile('unlimited'))).toBe(Number.POSITIVE_INFINITY);
    expect(readOpenFileLimit(join(tempFolder(), 'missing'))).toBeUndefined();
  });

  it('Should leave an eighth of the open files to the storage and the refusals, up to a ceiling', () => {
    expect(defaultMaxConnections(1024)).toBe(896);
    expect(defaultMaxConnections(256)).toBe(224);
    expect(defaultMaxConnections(1_048_576)).toBe(MAX_CONNECTIONS_CEILING);
    expect(defaultMaxConnections(Number.POSITIVE_INFINITY)).toBe(MAX_CONNECTIONS_CEILING);
    expect(defaultMaxConnections(1)).toBe(1);
  });

  it("Should follow this process's own limit", () => {
    const own = readOpenFileLimit();
    if (own === undefined) expect(defaultMaxConnections()).toBe(896);
    else expect(defaultMaxConnections()).toBe(Math.min(MAX_CONNECTIONS_CEILING, Math.floor((own * 7) / 8)));
  });
});
