/** @module Reads the `animal-store copy` command line. */
import { parseArgs } from 'node:util';
import { UsageError } from './parseServeArgs.js';

/** What `animal-store copy` is to copy, and where. */
export interface CopySettings {
  /** A data file's path or a postgres:// URL. */
  from: string;
  /** Likewise. */
  to: string;
  /** Replace what the target holds. */
  replace: boolean;
}

/** What the copy command line asks for. */
export type CopyRequest = { kind: 'help' } | { kind: 'copy'; settings: CopySettings };

/** Parses `copy --from PLACE --to PLACE [--replace]` (the arguments after `copy`). Throws a UsageError for anything else. */
export const parseCopyArgs = (argv: readonly string[]): CopyRequest => {
  const parse = () =>
    parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { from: { type: 'string' }, to: { type: 'string' }, replace: { type: 'boolean' }, help: { type: 'boolean' } },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0]!.slice(0, 40))}`);
  if (!values.from) throw new UsageError('copy needs --from: the data file or postgres:// URL to copy from');
  if (!values.to) throw new UsageError('copy needs --to: the data file or postgres:// URL to copy into');
  return { kind: 'copy', settings: { from: values.from, to: values.to, replace: values.replace ?? false } };
};
