/**
 * @module What a newcomer meets first with the real CLI: refusals that name the cause and
 * the fix in one line (a read-only file system, a missing key file, a folder given as a
 * file, an unknown host), X-Request-Id on every answer, an empty data file seeded, and
 * animals brought in from json-server's db.json or a plain array.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverProcesses, runCli, startCli } from '../../support/startCli.js';
import { tempFolder } from '../../support/tempFolder.js';

const KEY = 'newcomer-test-key-0001';
const authed = { authorization: `Bearer ${KEY}` };
const mounted: string[] = [];

afterEach(() => {
  killLeftoverProcesses();
  for (const folder of mounted.splice(0)) execFileSync('umount', [folder]);
});

/** Runs the CLI to its end; resolves with its exit code and what it printed on stderr. */
const refused = async (args: string[], cwd?: string) => {
  const cli = runCli(args, cwd === undefined ? {} : { cwd });
  const { code } = await cli.exited;
  return { code, stderr: cli.stderr() };
};

const JSON_SERVER_DB = {
  posts: [{ id: 1, title: 'not animals' }],
  pets: [
    { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    { id: 4, name: 'Tom', categoryId: 2, status: 'sold' },
  ],
};

describe('animal-store refusals a newcomer meets', () => {
  it('says a read-only folder is a read-only file system (EROFS), and how to serve anyway', async () => {
    const folder = tempFolder();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', folder]);
    mounted.push(folder);
    const { code, stderr } = await refused(['--port', '0'], folder);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `animal-store: The folder of the data file ${folder}/data/animals.json cannot be created: read-only file system (EROFS): ` +
        'choose a writable place with --data FILE (or run with --memory).\n',
    );
  });

  it('says a key file is missing and gives the command that makes one, or that a folder is not a file', async () => {
    const folder = tempFolder();
    const missing = await refused(['--memory', '--port', '0', '--api-key-file', path.join(folder, 'keys')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `animal-store: cannot read the API key file ${folder}/keys: there is no such file; make one, readable by you only: (umask 077; openssl rand -base64 24 > ${folder}/keys)\n`,
    );
    const notAFile = await refused(['--memory', '--port', '0', '--api-key-file', folder]);
    expect(notAFile.stderr).toBe(`animal-store: the API key file ${folder} is a folder, not a file: give the path of the file itself\n`);
  });

  it('says an unknown host is no host name, in one line', async () => {
    const { code, stderr } = await refused(['--memory', '--port', '0', '--api-key', KEY, '--host', 'no-such-host.invalid']);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^animal-store: cannot listen on no-such-host\.invalid: no such host name \(E\w+\); give an address of this machine with --host/,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses --data --memory rather than serving a file named --memory', async () => {
    const folder = tempFolder();
    const { code, stderr } = await refused(['--data', '--memory', '--port', '0'], folder);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^animal-store: --data needs a value, not the flag --memory/);
  });
});

describe('animal-store as the README tells it', () => {
  it('answers every request with an X-Request-Id, in the default text log format too', async () => {
    const cli = await startCli(['--memory', '--port', '0', '--api-key', KEY]);
    const quoted = await fetch(`${cli.url}/pets`, { headers: { ...authed, 'x-request-id': 'checkout-42' } });
    expect(quoted.headers.get('x-request-id')).toBe('checkout-42');
    const made = await fetch(`${cli.url}/pets`, { headers: authed });
    expect(made.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9_-]+-\d+$/);
  });

  it('seeds an empty (0-byte) data file with --seed', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    writeFileSync(file, '');
    writeFileSync(path.join(folder, 'seed.json'), JSON.stringify([{ name: 'Rex', categoryId: 1 }]));
    const cli = await startCli(['--data', file, '--seed', path.join(folder, 'seed.json'), '--port', '0', '--api-key', KEY]);
    expect(await (await fetch(`${cli.url}/pets`, { headers: authed })).json()).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8')).pets).toHaveLength(1);
  });

  it("serves json-server's db.json given with --seed", async () => {
    const folder = tempFolder();
    writeFileSync(path.join(folder, 'db.json'), JSON.stringify(JSON_SERVER_DB));
    const cli = await startCli(['--memory', '--seed', path.join(folder, 'db.json'), '--port', '0', '--api-key', KEY]);
    expect(await (await fetch(`${cli.url}/pets`, { headers: authed })).json()).toEqual(JSON_SERVER_DB.pets);
  });

  it("brings json-server's db.json or a plain array into a data file with animal-store copy, then serves it", async () => {
    const folder = tempFolder();
    writeFileSync(path.join(folder, 'db.json'), JSON.stringify(JSON_SERVER_DB));
    writeFileSync(path.join(folder, 'list.json'), JSON.stringify([{ name: 'Kit', categoryId: 3 }]));
    mkdirSync(path.join(folder, 'data'));
    const copy = runCli(['copy', '--from', 'db.json', '--to', 'data/animals.json'], { cwd: folder });
    expect((await copy.exited).code).toBe(0);
    expect(copy.stdout()).toBe(`imported 2 animals from the list db.json to ${folder}/data/animals.json; the next id is 5\n`);
    const again = runCli(['copy', '--from', 'list.json', '--to', 'data/animals.json'], { cwd: folder });
    expect((await again.exited).code).toBe(1);
    expect(again.stderr()).toMatch(/holds .*Give --replace to replace it\.\n$/);

    const cli = await startCli(['--port', '0', '--api-key', KEY], { cwd: folder });
    expect(await (await fetch(`${cli.url}/pets`, { headers: authed })).json()).toEqual(JSON_SERVER_DB.pets);
    const created = await fetch(`${cli.url}/pets`, {
      method: 'POST',
      headers: { ...authed, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kit', categoryId: 3 }),
    });
    expect((await created.json()).id).toBe(5);
  });

  it('says how to bring in a list of animals served by mistake as the data file', async () => {
    const folder = tempFolder();
    writeFileSync(path.join(folder, 'db.json'), JSON.stringify(JSON_SERVER_DB));
    const { code, stderr } = await refused(['db.json', '--port', '0', '--api-key', KEY], folder);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /format is missing\..*animal-store --seed db\.json --data NEW\.json, or animal-store copy --from db\.json --to NEW\.json\n$/,
    );
    // Left as it was.
    expect(JSON.parse(readFileSync(path.join(folder, 'db.json'), 'utf8'))).toEqual(JSON_SERVER_DB);
  });
});
