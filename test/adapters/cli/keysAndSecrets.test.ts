/** @module The CLI's keys and secrets: key files, the cursor secret file, the key made for a run. */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectKeys, parseKeyFile } from '../../../adapters/cli/collectKeys.js';
import { readCursorSecret } from '../../../adapters/cli/readCursorSecret.js';
import { writeKeyFile } from '../../../adapters/cli/writeKeyFile.js';
import { tempFolder } from '../../support/tempFolder.js';

const secretFile = (text: string, mode = 0o600) => {
  const file = path.join(tempFolder(), 'secret');
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
};

const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('it did not fail');
};

describe('API keys from files', () => {
  it('reads one key per line, skipping blank lines and # comments', () => {
    const text = '# kiosk keys\n\nkiosk-one-0123456789\n  kiosk-two-0123456789   # the shop floor\r\n#kiosk-three-0123456789\n';
    expect(parseKeyFile(text, 'keys.txt')).toEqual([
      { key: 'kiosk-one-0123456789', source: 'line 3 of keys.txt' },
      { key: 'kiosk-two-0123456789', source: 'line 4 of keys.txt' },
    ]);
  });

  it('refuses a file without a key, or with a line that is not a key, without repeating it', () => {
    expect(() => parseKeyFile('# nothing yet\n\n', 'keys.txt')).toThrow(/the API key file keys.txt holds no key/);
    expect(() => parseKeyFile('good-key-0123456789\nnot a key at all\n', 'keys.txt')).toThrow(
      /^line 2 of keys.txt has "a", which is neither a scope/,
    );
    expect(() => parseKeyFile('good-key-0123456789\nnot"a"key\n', 'keys.txt')).toThrow(/^line 2 of keys.txt is not an API key/);
    expect(() => parseKeyFile('not a key at all', 'keys.txt')).not.toThrow(/not a key at all/);
  });

  it('joins the given keys and every file, dropping duplicates, and warns of a file others can read', async () => {
    const warnings: string[] = [];
    const loose = secretFile('file-key-0123456789\ngiven-key-0123456789\n', 0o644);
    const keys = await collectKeys([{ key: 'given-key-0123456789', source: '--api-key #1' }], [loose], (message) => warnings.push(message));
    expect(keys.map(({ key }) => key)).toEqual(['given-key-0123456789', 'file-key-0123456789']);
    expect(warnings).toEqual([`the API key file ${loose} can be read by other users (mode 0644); make it yours alone: chmod 600 ${loose}`]);

    warnings.length = 0;
    await collectKeys([], [secretFile('file-key-0123456789\n', 0o600)], (message) => warnings.push(message));
    expect(warnings).toEqual([]);
  });

  it('refuses a key shorter than 16 characters, saying which and how to make one, never what it is', async () => {
    const file = secretFile('long-enough-key-0001\nshortkey\n');
    const error = await rejection(collectKeys([], [file], () => {}));
    expect(error.message).toBe(
      `the API key from line 2 of ${file} has 8 characters; keys need at least 16, so that they cannot be guessed: make one with: openssl rand -base64 24`,
    );
    const given = await rejection(collectKeys([{ key: 'k', source: 'key #1 of ANIMAL_STORE_API_KEYS' }], [], () => {}));
    expect(given.message).toMatch(/^the API key from key #1 of ANIMAL_STORE_API_KEYS has 1 characters/);
  });

  it('says which key file is missing, and the command that makes one', async () => {
    const missing = path.join(tempFolder(), 'nope');
    expect((await rejection(collectKeys([], [missing], () => {}))).message).toBe(
      `cannot read the API key file ${missing}: there is no such file; make one, readable by you only: (umask 077; openssl rand -base64 24 > ${missing})`,
    );
  });

  it('says which key file is a folder rather than a file', async () => {
    const folder = tempFolder();
    expect((await rejection(collectKeys([], [folder], () => {}))).message).toBe(
      `the API key file ${folder} is a folder, not a file: give the path of the file itself`,
    );
  });
});

describe('the cursor secret file', () => {
  it('reads the secret, without the blanks around it, and warns when others can read it', async () => {
    const warnings: string[] = [];
    expect(await readCursorSecret(undefined, secretFile('  a-secret-from-a-file-01\n'), (message) => warnings.push(message))).toBe(
      'a-secret-from-a-file-01',
    );
    expect(warnings).toEqual([]);
    await readCursorSecret(undefined, secretFile('a-secret-from-a-file-01\n', 0o640), (message) => warnings.push(message));
    expect(warnings[0]).toMatch(/the cursor secret file .* can be read by other users \(mode 0640\)/);
    expect(await readCursorSecret('the-given-one-0123', undefined, () => {})).toBe('the-given-one-0123');
    expect(await readCursorSecret(undefined, undefined, () => {})).toBeUndefined();
  });

  it('refuses a short secret or more than one line, without repeating it', async () => {
    const short = await rejection(readCursorSecret(undefined, secretFile('tiny\n'), () => {}));
    expect(short.message).toMatch(/has 4 characters; it needs at least 16/);
    expect(short.message).not.toContain('tiny');
    const lines = await rejection(readCursorSecret(undefined, secretFile('first-line-0123456789\nsecond-line-0123456789\n'), () => {}));
    expect(lines.message).toMatch(/must hold one line/);
  });
});

describe('the key made for a run', () => {
  it('is written beside the data file, mode 0600, replacing the last one whatever its mode', async () => {
    const folder = tempFolder();
    const old = path.join(folder, 'api-key');
    writeFileSync(old, 'old-key\n');
    chmodSync(old, 0o644);
    const written = await writeKeyFile(path.join(folder, 'animals.json'), 'new-key-0123456789');
    expect(written).toBe(old);
    expect(readFileSync(old, 'utf8')).toBe('new-key-0123456789\n');
    expect(statSync(old).mode & 0o777).toBe(0o600);
  });
});
