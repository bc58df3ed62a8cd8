/**
 * @module The real `animal-store` command, started as a process: serve as the default
 * command, a data file given as FILE, --version and --help, usage errors, keys and their
 * files, the key made for a run, seeds, and the request and limit flags.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForOutput } from '../../support/nodeProcess.js';
import { readDataFile } from '../../support/serverProcess.js';
import { killLeftoverProcesses, REPO_ROOT, runCli, startCli } from '../../support/startCli.js';
import { tempFolder } from '../../support/tempFolder.js';

afterEach(killLeftoverProcesses);

const KEY = 'commands-test-key-0123';
const authed = (key: string) => ({ authorization: `Bearer ${key}` });
const post = (url: string, body: unknown, headers: Record<string, string> = authed(KEY)) =>
  fetch(`${url}/pets`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const names = async (url: string) =>
  ((await (await fetch(`${url}/pets`, { headers: authed(KEY) })).json()) as Array<{ name: string }>).map((pet) => pet.name);

/** The quick start's shell commands, each with the output the README prints under it (`# …`). */
const quickStartCurls = (): Array<{ command: string; expected: string | undefined }> => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  const lines = section.replace(/\\\n\s*/g, '').split('\n');
  return lines.flatMap((line, index) =>
    line.startsWith('curl ')
      ? [{ command: line, expected: lines[index + 1]?.startsWith('# ') ? lines[index + 1]!.slice(2) : undefined }]
      : [],
  );
};

describe('animal-store with no command: serve, as npx animal-store', () => {
  it('serves ./data/animals.json with a key made for the run, on stderr and in data/api-key (0600); the README curl works as printed', async () => {
    const folder = tempFolder();
    const cli = await startCli([], { cwd: folder, env: { PORT: '0' } });
    const [, key] = await waitForOutput(cli, /generated one for this run: (\S+)/, 5_000, 'stderr');
    expect(cli.stdout()).not.toContain(key);
    expect(existsSync(path.join(folder, 'data', 'animals.json'))).toBe(true);
    const keyFile = path.join(folder, 'data', 'api-key');
    expect(readFileSync(keyFile, 'utf8')).toBe(`${key}\n`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(cli.stderr()).toMatch(/data\/api-key \(mode 0600\)/);

    const curls = quickStartCurls();
    expect(curls.length).toBeGreaterThanOrEqual(2);
    for (const { command, expected } of curls) {
      const { stdout } = await promisify(execFile)('sh', ['-c', command.replaceAll('http://127.0.0.1:8080', new URL(cli.url).origin)], {
        cwd: folder,
      });
      if (expected !== undefined) expect(stdout).toBe(expected);
    }

    // Another start, another key: the file holds the new one, and the old one is refused.
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
    const again = await startCli([], { cwd: folder, env: { PORT: '0' } });
    const [, second] = await waitForOutput(again, /generated one for this run: (\S+)/, 5_000, 'stderr');
    expect(second).not.toBe(key);
    expect(readFileSync(keyFile, 'utf8')).toBe(`${second}\n`);
    expect((await fetch(`${again.url}/pets`, { headers: authed(key!) })).status).toBe(401);
    expect(await (await fetch(`${again.url}/pets`, { headers: authed(second!) })).json()).toMatchObject([{ id: 1, name: 'Rex' }]);
  });

  it('serves the data file given as FILE: animal-store ./pets.json', async () => {
    const folder = tempFolder();
    const cli = await startCli(['./pets.json', '-p', '0', '--api-key', KEY, '--quiet'], { cwd: folder });
    expect((await post(cli.url, { name: 'Rex', categoryId: 1 })).status).toBe(201);
    // On disk at once: in the data file's journal while it runs (see docs/json-file.md).
    expect(readDataFile(path.join(folder, 'pets.json')).pets.map(({ name }) => name)).toEqual(['Rex']);
    expect(existsSync(path.join(folder, 'data'))).toBe(false);
  });

  it('prints its version and its help, exit code 0', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const printed = runCli(['--version']);
    expect(await printed.exited).toMatchObject({ code: 0 });
    expect(printed.stdout()).toBe(`${version}\n`);
    const help = runCli(['-h']);
    expect(await help.exited).toMatchObject({ code: 0 });
    expect(help.stdout()).toMatch(/^Usage: animal-store serve \[options\] \[FILE\]/);
    expect(help.stdout()).toMatch(/--api-key-file FILE/);
  });

  it('answers a mistyped flag with the closest one and the usage line, exit code 2', async () => {
    const cli = runCli(['--prot', '8080']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toBe(
      "animal-store: unknown option '--prot'; did you mean --port?\n" +
        'Usage: animal-store serve [options] [FILE]   (animal-store --help lists every option)\n',
    );
    expect(cli.stdout()).toBe('');
  });
});

describe('animal-store keys', () => {
  it('refuses a key shorter than 16 characters at start, saying which and how to make one, exit code 1', async () => {
    const cli = runCli(['--memory', '--port', '0', '--api-key', 'long-enough-key-0001', '--api-key', 'short']);
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toBe(
      'animal-store: the API key from --api-key #2 has 5 characters; keys need at least 16, so that they cannot be guessed: make one with: openssl rand -base64 24\n',
    );
    expect(cli.stdout()).toBe('');
  });

  it('refuses a key list of blanks instead of generating a key, exit code 2', async () => {
    const cli = runCli(['--memory', '--port', '0'], { env: { ANIMAL_STORE_API_KEYS: ' , ' } });
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/^animal-store: ANIMAL_STORE_API_KEYS holds no key/);
    expect(cli.stderr()).not.toMatch(/generated/);
  });

  it('takes keys from --api-key-file, warns when other users can read it, and makes no key of its own', async () => {
    const folder = tempFolder();
    const keyFile = path.join(folder, 'keys');
    writeFileSync(keyFile, `# the shop's keys\nfile-key-number-one-01\n\nfile-key-number-two-02  # kiosk\n`);
    chmodSync(keyFile, 0o644);
    const cli = await startCli(['--memory', '--port', '0', '--api-key-file', keyFile, '--quiet']);
    expect(cli.stderr()).toContain(
      `warning: the API key file ${keyFile} can be read by other users (mode 0644); make it yours alone: chmod 600 ${keyFile}`,
    );
    expect(cli.stderr()).not.toMatch(/generated/);
    expect((await fetch(`${cli.url}/pets`, { headers: authed('file-key-number-two-02') })).status).toBe(200);
    expect((await fetch(`${cli.url}/pets`, { headers: authed('file-key-number-one-01') })).status).toBe(200);
    expect(cli.stderr() + cli.stdout()).not.toContain('file-key-number');
  });

  it('reads the cursor secret from --cursor-secret-file', async () => {
    const folder = tempFolder();
    const secretFile = path.join(folder, 'cursor-secret');
    writeFileSync(secretFile, 'a-cursor-secret-from-a-file\n', { mode: 0o600 });
    const one = await startCli(['--memory', '--port', '0', '--api-key', KEY, '--quiet', '--cursor-secret-file', secretFile]);
    for (const name of ['Rex', 'Tom']) await post(one.url, { name, categoryId: 1 });
    const next = /<([^>]+)>; rel="next"/.exec(
      (await fetch(`${one.url}/pets?limit=1`, { headers: authed(KEY) })).headers.get('link') ?? '',
    )?.[1];
    expect((await fetch(new URL(next!, one.url), { headers: authed(KEY) })).status).toBe(200);
    // Another secret does not open that cursor.
    const other = await startCli(['--memory', '--port', '0', '--api-key', KEY, '--quiet', '--cursor-secret', 'another-secret-0123456']);
    expect((await fetch(new URL(next!, other.url), { headers: authed(KEY) })).status).toBe(400);
  });
});

describe('animal-store --seed', () => {
  const seedFile = (content: unknown) => {
    const file = path.join(tempFolder(), 'seed.json');
    writeFileSync(file, JSON.stringify(content));
    return file;
  };

  it('accepts what loadSeedFile accepts: new animals, animals with ids, a data file', async () => {
    const seeds: Array<[unknown, Array<{ id: number; name: string }>]> = [
      [
        [
          { name: 'Biscuit', categoryId: 1 },
          { name: 'Nimbus', categoryId: 2, status: 'pending' },
        ],
        [
          { id: 1, name: 'Biscuit' },
          { id: 2, name: 'Nimbus' },
        ],
      ],
      [[{ id: 5, name: 'Pepper', categoryId: 1, status: 'available' }], [{ id: 5, name: 'Pepper' }]],
      [{ format: 1, nextId: 10, pets: [{ id: 9, name: 'Juniper', categoryId: 3, status: 'sold' }] }, [{ id: 9, name: 'Juniper' }]],
    ];
    for (const [seed, expected] of seeds) {
      const cli = await startCli(['--memory', '--port', '0', '--api-key', KEY, '--quiet', '--seed', seedFile(seed)]);
      expect(await (await fetch(`${cli.url}/pets`, { headers: authed(KEY) })).json()).toMatchObject(expected);
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('fills a new data file, and leaves one that holds animals as it is, saying so', async () => {
    const dataFile = path.join(tempFolder(), 'animals.json');
    const seed = seedFile([{ id: 3, name: 'Mochi', categoryId: 2, status: 'available' }]);
    const first = await startCli([dataFile, '--port', '0', '--api-key', KEY, '--quiet', '--seed', seed]);
    expect(await post(first.url, { name: 'Tom', categoryId: 1 }).then((response) => response.json())).toMatchObject({ id: 4 });
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await startCli([dataFile, '--port', '0', '--api-key', KEY, '--quiet', '--seed', seed]);
    expect(await names(second.url)).toEqual(['Mochi', 'Tom']);
    expect(second.stderr()).toMatch(/already holds animals, so --seed was not used/);
  });

  it('refuses a seed it cannot use, naming the file and the problem, exit code 1', async () => {
    const seed = seedFile([{ name: '', categoryId: 1 }]);
    const cli = runCli(['--memory', '--port', '0', '--api-key', KEY, '--seed', seed]);
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toMatch(new RegExp(`^animal-store: The seed file ${seed} at \\[0\\] is not valid: name`));
  });
});

describe('animal-store request and limit flags', () => {
  it('--rate-limit 2/60 limits each key; --require-idempotency-key refuses a create without one', async () => {
    const cli = await startCli([
      '--memory',
      '--port',
      '0',
      '--api-key',
      KEY,
      '--quiet',
      '--rate-limit',
      '2/60',
      '--require-idempotency-key',
    ]);
    const first = await post(cli.url, { name: 'Rex', categoryId: 1 });
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ code: 'validation_failed', details: [{ path: 'Idempotency-Key' }] });
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    expect((await post(cli.url, { name: 'Rex', categoryId: 1 }, { ...authed(KEY), 'idempotency-key': '"first-create"' })).status).toBe(201);
    const limited = await fetch(`${cli.url}/pets`, { headers: authed(KEY) });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('--rate-limit with bad syntax is a usage error, exit code 2', async () => {
    const cli = runCli(['--memory', '--rate-limit', 'lots']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/^animal-store: option '--rate-limit <LIMIT\/SECONDS>' argument 'lots' is invalid/);
  });

  it('--max-connections 1 answers a second connection 503 while the first is open and may not be closed', async () => {
    const cli = await startCli(['--memory', '--port', '0', '--api-key', KEY, '--quiet', '--max-connections', '1', '--shed-after', '60000']);
    const { port } = new URL(cli.url);
    const first = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => first.once('connect', resolve));
    const second = connect(Number(port), '127.0.0.1');
    second.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    let received = '';
    second.on('data', (chunk) => (received += chunk.toString()));
    second.on('error', () => {});
    await new Promise((resolve) => second.once('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(received).toMatch(/\r\nretry-after: 1\r\n/);
    expect(received).toContain('"code":"service_unavailable"');
    first.destroy();
  });
});
