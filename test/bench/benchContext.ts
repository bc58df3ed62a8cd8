/** @module What the start-up and throughput measurements share: where servers run, on which data, and how to report. */
import type { BenchDataFiles } from './benchData.js';
import type { BenchDatabase } from './benchDatabase.js';
import type { Pinning } from './machine.js';
import type { ContenderId } from './servers.js';

/** One bench run's surroundings, built once by run.ts. */
export interface BenchContext {
  pinning: Pinning;
  /** The contenders this run measures, in the order each round runs them. */
  contenders: ContenderId[];
  /** The data files of a catalogue size, written on first use. */
  dataFor(animals: number): Promise<BenchDataFiles>;
  /** A fresh directory for one server start. */
  workDir(): string;
  /** Run our server from this tsc build instead of through tsx. */
  compiledDir?: string;
  /** Profile our server into this directory. */
  profileDir?: string;
  /** The database of our `postgres` storage, unless the run was told to go without (`--no-postgres`). */
  database?: BenchDatabase;
  /** A progress line on stderr. */
  log(line: string): void;
  /** Records that something failed: the bench then exits non-zero. */
  failed(): void;
}

/** An error's first lines, for a log line or a table cell. */
export const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n').slice(0, 6).join(' | ');
