/**
 * @module What the test suite needs beyond the project's npm packages, and which of it this
 * machine lacks: Chromium (the browser tests drive it through playwright-core), wrk (the
 * bench's smoke run loads servers with it) and PostgreSQL's server binaries (the PostgreSQL
 * tests start throwaway clusters of a real server). Pure: it only looks at the paths given.
 */
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** A program the tests need, the Debian package that brings it, and why the tests need it. */
export interface TestTool {
  name: string;
  debianPackage: string;
  why: string;
}

/** Where to look; each defaults to where Debian puts it. */
export interface ToolPlaces {
  /** The browser the browser tests launch (test/support/chromium.ts). */
  chromium: string;
  /** The folders searched for `wrk`, as `PATH` lists them. */
  path: string;
  /** The folder holding one folder per PostgreSQL version, each with `bin/initdb`. */
  postgresRoot: string;
  /** A database the tests may use instead of their own clusters (ANIMAL_STORE_TEST_DATABASE_URL). */
  databaseUrl?: string | undefined;
}

/** Debian's places, with `PATH` and the test database from the environment. */
export const debianPlaces = (env: NodeJS.ProcessEnv = process.env): ToolPlaces => ({
  chromium: '/usr/bin/chromium',
  path: env.PATH ?? '',
  postgresRoot: '/usr/lib/postgresql',
  databaseUrl: env.ANIMAL_STORE_TEST_DATABASE_URL,
});

const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const onPath = (program: string, searchPath: string): boolean =>
  searchPath
    .split(path.delimiter)
    .filter((folder) => folder !== '')
    .some((folder) => isExecutable(path.join(folder, program)));

const hasPostgresServer = (root: string): boolean =>
  existsSync(root) && readdirSync(root).some((version) => isExecutable(path.join(root, version, 'bin', 'initdb')));

/** Every tool the tests need that is not at its place, in a fixed order. */
export const findMissingTestTools = (places: ToolPlaces): TestTool[] => {
  const missing: TestTool[] = [];
  if (!isExecutable(places.chromium)) missing.push({ name: 'Chromium', debianPackage: 'chromium', why: 'the browser tests' });
  if (!onPath('wrk', places.path)) missing.push({ name: 'wrk', debianPackage: 'wrk', why: "the bench's smoke run" });
  if (!places.databaseUrl && !hasPostgresServer(places.postgresRoot)) {
    missing.push({ name: 'PostgreSQL', debianPackage: 'postgresql', why: 'the PostgreSQL tests, which start real servers' });
  }
  return missing;
};

/** The one command that installs `missing` on Debian. */
export const installCommand = (missing: readonly TestTool[], asRoot: boolean): string =>
  `${asRoot ? '' : 'sudo '}apt-get install -y --no-install-recommends ${missing.map((tool) => tool.debianPackage).join(' ')}`;
