import { describe, expect, it } from 'vitest';
import { parseCopyArgs } from '../../../adapters/cli/parseCopyArgs.js';
import { UsageError } from '../../../adapters/cli/parseServeArgs.js';

describe('animal-store copy arguments', () => {
  it('reads --from, --to and --replace', () => {
    expect(parseCopyArgs(['--from', './data/animals.json', '--to', 'postgres://h/d'])).toEqual({
      kind: 'copy',
      settings: { from: './data/animals.json', to: 'postgres://h/d', replace: false },
    });
    expect(parseCopyArgs(['--to', 'b.json', '--replace', '--from', 'a.json'])).toEqual({
      kind: 'copy',
      settings: { from: 'a.json', to: 'b.json', replace: true },
    });
    expect(parseCopyArgs(['--help'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['--to', 'b.json'], /needs --from/],
    [['--from', 'a.json'], /needs --to/],
    [['--from', '', '--to', 'b.json'], /needs --from/],
    [['--from', 'a.json', '--to', 'b.json', 'extra'], /unexpected argument "extra"/],
    [['--from', 'a.json', '--to', 'b.json', '--force'], /force/],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(() => parseCopyArgs(argv)).toThrow(UsageError);
    expect(() => parseCopyArgs(argv)).toThrow(message);
  });
});
