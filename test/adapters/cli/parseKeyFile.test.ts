import { describe, expect, it } from 'vitest';
import { parseKeyFile } from '../../../adapters/cli/collectKeys.js';

const KEY = 'a-key-of-the-file-001';

describe('a keys file line: KEY [SCOPE…] [name=NAME]', () => {
  it('Should read scopes and a name, and give a line without scopes every scope', () => {
    const text = `# the shop\n${KEY} read name=lobby-screen\n${KEY}2 sync create   name=kiosk.1 # the till\n${KEY}3\n`;
    expect(parseKeyFile(text, 'keys')).toEqual([
      { key: KEY, source: 'line 2 of keys', scopes: ['read'], name: 'lobby-screen' },
      { key: `${KEY}2`, source: 'line 3 of keys', scopes: ['sync', 'create'], name: 'kiosk.1' },
      { key: `${KEY}3`, source: 'line 4 of keys' },
    ]);
  });

  it.each([
    [`${KEY} write`, /line 1 of keys has "write", which is neither a scope \(read, create, sync\) nor name=NAME/],
    [`${KEY} name=`, /line 1 of keys has the name ""/],
    [`${KEY} name=a/b`, /has the name "a\/b"/],
    [`${KEY} name=a name=b`, /names its key twice/],
  ])('Should refuse %s, naming the line and never the key', (line, message) => {
    let thrown: unknown;
    try {
      parseKeyFile(line, 'keys');
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain(KEY);
  });
});
