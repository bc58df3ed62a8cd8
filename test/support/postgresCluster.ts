/**
 * @module A real PostgreSQL server for tests: a throwaway cluster made with Debian's binaries
 * (`initdb` in a temp folder, as the `postgres` user when running as root, a Unix socket in
 * that folder and a free port on 127.0.0.1), stopped and removed after. Never a mock. A
 * missing server is an error saying what to install, never a skipped test.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** Where Debian (and the `postgresql` package `npm test` installs) keeps the server's binaries. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/** Initialised clusters are copied from here rather than made again (initdb takes seconds). */
const CACHE = path.join(os.tmpdir(), 'animal-store-test-cache');

/** What to do when there is no server to test against. */
const MISSING =
  'The PostgreSQL tests need a PostgreSQL server. Install the server binaries (Debian: apt-get install -y postgresql, ' +
  'as npm test does), or set ANIMAL_STORE_TEST_DATABASE_URL to a database in which the tests may create schemas and databases.';

/** The folder of `initdb`, `postgres` and friends: the newest Debian version, else `pg_config --bindir`. */
const findBinaries = (): string => {
  const versions = fs.existsSync(DEBIAN_ROOT)
    ? fs
        .readdirSync(DEBIAN_ROOT)
        .filter((name) => fs.existsSync(path.join(DEBIAN_ROOT, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] !== undefined) return path.join(DEBIAN_ROOT, versions[0], 'bin');
  try {
    const folder = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (fs.existsSync(path.join(folder, 'initdb'))) return folder;
  } catch {}
  throw new Error(MISSING);
};

/** The user the server runs as: `postgres` when we are root (initdb refuses root), else ourselves. */
const serverUser = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error(`Running as root, the tests start PostgreSQL as the postgres user, which does not exist. ${MISSING}`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
};

/** A port nobody listens on right now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** Runs a binary as the server's user and waits for it; throws with its output when it fails. */
const runAs = (user: { uid: number; gid: number } | undefined, command: string, args: string[]) => {
  try {
    execFileSync(command, args, { stdio: 'pipe', ...(user ?? {}), cwd: os.tmpdir() });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`${path.basename(command)} failed: ${stderr?.toString() ?? ''}${stdout?.toString() ?? ''}`);
  }
};

/** An initialised, never started data folder for this version, made once per machine and copied for each cluster. */
const initialisedTemplate = (binaries: string, user: { uid: number; gid: number } | undefined): string => {
  const version = execFileSync(path.join(binaries, 'postgres'), ['--version'], { encoding: 'utf8' }).trim().replace(/\W+/g, '-');
  const template = path.join(CACHE, `${version}-${user ? 'postgres' : os.userInfo().username}-initdb`);
  if (fs.existsSync(path.join(template, 'PG_VERSION'))) return template;
  fs.mkdirSync(CACHE, { recursive: true });
  const making = fs.mkdtempSync(path.join(CACHE, 'initdb-'));
  if (user) fs.chownSync(making, user.uid, user.gid);
  const data = path.join(making, 'data');
  runAs(user, path.join(binaries, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  try {
    fs.renameSync(data, template);
  } catch {
    // Another test file made it first: use theirs.
  }
  fs.rmSync(making, { recursive: true, force: true });
  return template;
};

/** A running throwaway PostgreSQL server. */
export interface PostgresCluster {
  /** A connection string for the `postgres` database as the `postgres` superuser, over TCP. */
  url: string;
  /** The port it listens on (the same after `start()` again). */
  port: number;
  /** Stops the server (fast shutdown: connections are cut), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

/** Waits until the server accepts connections; throws with its log when it exits or takes too long. */
const waitUntilReady = async (url: string, child: ChildProcess, log: string) => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`PostgreSQL exited while starting:\n${fs.readFileSync(log, 'utf8').slice(-2000)}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
    }
    if (Date.now() > deadline)
      throw new Error(`PostgreSQL did not accept connections within 30 s:\n${fs.readFileSync(log, 'utf8').slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * Starts a throwaway cluster: copies an initialised data folder into a temp folder (made
 * with `initdb` the first time), and runs `postgres` on it as a child process, listening on
 * a free port of 127.0.0.1 and on a Unix socket in the folder. PostgreSQL's durability
 * settings are left at their defaults (`fsync` and `synchronous_commit` on).
 */
export const startPostgresCluster = async (): Promise<PostgresCluster> => {
  const binaries = findBinaries();
  const user = serverUser();
  const template = initialisedTemplate(binaries, user);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-pg-'));
  if (user) fs.chownSync(folder, user.uid, user.gid);
  const data = path.join(folder, 'data');
  runAs(user, 'cp', ['-a', template, data]);
  const log = path.join(folder, 'postgres.log');
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  let child: ChildProcess | undefined;
  const start = async () => {
    const output = fs.openSync(log, 'a');
    child = spawn(
      path.join(binaries, 'postgres'),
      ['-D', data, '-p', String(port), '-k', folder, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
      { stdio: ['ignore', output, output], ...(user ?? {}), cwd: folder },
    );
    fs.closeSync(output);
    // A program that exits without destroying its cluster (stopped by a signal, say) still
    // shuts the server down: SIGINT asks for a fast shutdown, which needs nothing of us.
    const running = child;
    const shutDown = () => running.kill('SIGINT');
    process.once('exit', shutDown);
    running.once('exit', () => process.removeListener('exit', shutDown));
    await waitUntilReady(url, child, log);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGINT');
    const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  await start();
  return {
    url,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
};
