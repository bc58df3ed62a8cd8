import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { track, waitForOutput } from '../../support/nodeProcess.js';
import { killLeftoverProcesses, REPO_ROOT, runCli, startCli, waitForListening } from '../../support/startCli.js';
import { tempFolder } from '../../support/tempFolder.js';

afterEach(killLeftoverProcesses);

const started = (args: string[], env?: Record<string, string>) => startCli(args, env ? { env } : {});

const authed = (key: string) => ({ authorization: `Bearer ${key}` });

/** Runs `npm start -- --port 0 --memory --api-key …` as the README does (or with `storage` for `--memory`), in a process group of its own. */
const startNpm = (storage = ['--memory']) =>
  track(
    spawn('npm', ['start', '--silent', '--', '--port', '0', ...storage, '--api-key', 'cli-test-key-0123456'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
  );

describe('animal-store serve (the real CLI over HTTP)', () => {
  it('serves the interface on a free port and logs one line per request, never the key', async () => {
    const cli = await started(['serve', '--port', '0', '--memory', '--api-key', 'secret-key-number-1']);
    expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    expect((await fetch(`${cli.url}/pets`)).status).toBe(401);
    const created = await fetch(`${cli.url}/pets`, {
      method: 'POST',
      headers: { ...authed('secret-key-number-1'), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/pets/1');
    const list = await fetch(`${cli.url}/pets?status=available`, { headers: authed('secret-key-number-1') });
    expect(await list.json()).toEqual([{ id: 1, name: 'Rex', categoryId: 3, status: 'available' }]);
    const health = await fetch(new URL('/healthz', cli.url));
    expect(health.status).toBe(200);

    const big = await fetch(`${cli.url}/pets`, {
      method: 'POST',
      headers: { ...authed('secret-key-number-1'), 'content-type': 'application/json' },
      body: 'x'.repeat(200_000),
    });
    expect(big.status).toBe(413);
    // The server goes on serving after refusing a large body.
    expect((await fetch(`${cli.url}/pets`, { headers: authed('secret-key-number-1') })).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 100));
    const log = cli.stdout();
    expect(log).toMatch(/GET \/v1\/pets 401 \d+\.\dms/);
    expect(log).toMatch(/POST \/v1\/pets 201 \d+\.\dms/);
    expect(log).not.toContain('secret-key-number-1');
    expect(cli.stderr()).not.toContain('secret-key-number-1');
  });

  it('stops on SIGTERM after in-flight requests, exit code 0', async () => {
    const cli = await started(['serve', '--port', '0', '--memory', '--api-key', 'cli-test-key-0123456', '--quiet']);
    const inFlight = fetch(`${cli.url}/pets`, { headers: authed('cli-test-key-0123456') });
    await new Promise((resolve) => setTimeout(resolve, 5));
    cli.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(200);
    expect((await cli.exited).code).toBe(0);
  });

  it('makes a key when none is configured, prints it once on stderr (never the access log), and accepts only it', async () => {
    const cli = await started(['serve', '--port', '0', '--memory']);
    const [, key] = await waitForOutput(cli, /generated one for this run: (\S+)/, 5_000, 'stderr');
    expect(cli.stderr()).toMatch(/--api-key-file/);
    expect(cli.stderr().split(key!).length - 1).toBe(1);
    expect(cli.stdout()).not.toContain(key);
    expect((await fetch(`${cli.url}/pets`, { headers: authed(key!) })).status).toBe(200);
    expect((await fetch(`${cli.url}/pets`, { headers: authed('guess') })).status).toBe(401);
    expect(cli.stdout()).not.toContain(key);
  });

  it('takes keys from ANIMAL_STORE_API_KEYS and a base path from --base-path', async () => {
    const cli = await started(['serve', '--port', '0', '--memory', '--base-path', '/api'], {
      ANIMAL_STORE_API_KEYS: 'first-cli-key-01234,second-cli-key-0123',
    });
    expect(cli.url).toMatch(/\/api$/);
    expect((await fetch(`${cli.url}/pets`, { headers: authed('second-cli-key-0123') })).status).toBe(200);
    expect(cli.stderr()).not.toMatch(/generated/);
  });

  it('keeps animals in the JSON file by default and finds them after a restart', async () => {
    const folder = tempFolder();
    const file = join(folder, 'nested', 'animals.json');
    const first = await started(['serve', '--port', '0', '--data', file, '--api-key', 'cli-test-key-0123456', '--quiet']);
    const created = await fetch(`${first.url}/pets`, {
      method: 'POST',
      headers: { ...authed('cli-test-key-0123456'), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3, status: 'sold' }),
    });
    expect(created.status).toBe(201);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"Rex"');

    const second = await started(['serve', '--port', '0', '--data', file, '--api-key', 'cli-test-key-0123456', '--quiet']);
    const pets = await (await fetch(`${second.url}/pets`, { headers: authed('cli-test-key-0123456') })).json();
    expect(pets).toEqual([{ id: 1, name: 'Rex', categoryId: 3, status: 'sold' }]);
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('answers an invalid flag with a one-line error and the usage, exit code 2', async () => {
    const cli = runCli(['serve', '--prot', '8080']);
    expect((await cli.exited).code).toBe(2);
    const [first, ...rest] = cli.stderr().trim().split('\n');
    expect(first).toMatch(/^animal-store: .*prot/);
    expect(rest.join('\n')).toMatch(/Usage: animal-store serve/);
    expect(cli.stdout()).toBe('');
  });

  it('prints the usage for --help, exit code 0', async () => {
    const cli = runCli(['--help']);
    expect((await cli.exited).code).toBe(0);
    expect(cli.stdout()).toMatch(/--api-key KEY/);
  });

  it('says clearly when the port is taken, exit code 1', async () => {
    const first = await started(['serve', '--port', '0', '--memory', '--api-key', 'cli-test-key-0123456']);
    const port = new URL(first.url).port;
    const second = runCli(['serve', '--port', port, '--memory', '--api-key', 'cli-test-key-0123456']);
    expect((await second.exited).code).toBe(1);
    expect(second.stderr()).toMatch(new RegExp(`port ${port} .*already in use`));
  });

  it('works as the README says: npm start -- --port 0 --memory --api-key k', async () => {
    // Its own process group, so that npm, tsx and the server all get the signal.
    const npm = startNpm();
    try {
      const url = await waitForListening(npm);
      expect((await fetch(`${url}/pets`, { headers: authed('cli-test-key-0123456') })).status).toBe(200);
    } finally {
      process.kill(-npm.pid, 'SIGTERM');
      await npm.exited;
    }
  });

  it("stops cleanly on Ctrl-C in npm start's terminal (SIGINT to npm and the server both): exit 0, the data file one document, no journal left", async () => {
    const file = join(tempFolder(), 'animals.json');
    const npm = startNpm(['--data', file]);
    const url = await waitForListening(npm);
    const created = await fetch(`${url}/pets`, {
      method: 'POST',
      headers: { ...authed('cli-test-key-0123456'), 'content-type': 'application/json', 'idempotency-key': 'ctrl-c-1' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
    });
    expect(created.status).toBe(201);
    expect(existsSync(`${file}.journal`)).toBe(true);
    // What a terminal does on Ctrl-C: the signal to every process of the foreground group; npm passes its own on too.
    process.kill(-npm.pid, 'SIGINT');
    expect((await npm.exited).code).toBe(0);
    expect(npm.stderr()).not.toContain('again');
    expect(existsSync(`${file}.journal`)).toBe(false);
    const document = JSON.parse(readFileSync(file, 'utf8'));
    expect(document.pets).toEqual([{ id: 1, name: 'Rex', categoryId: 3, status: 'available' }]);
    expect(document.idempotencyKeys).toHaveLength(1);
  });

  it('npm start is the server itself: SIGTERM to npm stops it, frees the port and leaves no process behind', async () => {
    // Its own process group, to find whatever npm started once npm is gone.
    const npm = startNpm();
    try {
      const url = await waitForListening(npm);
      expect((await fetch(`${url}/pets`, { headers: authed('cli-test-key-0123456') })).status).toBe(200);
      // npm's own exit: 'close' would also wait for whatever still holds its output.
      const npmExit = new Promise<number | null>((resolve) => npm.child.once('exit', (code) => resolve(code)));
      process.kill(npm.pid, 'SIGTERM');
      expect(await npmExit).toBe(0);
      // Nothing answers on the port any more, and no process of the group is left.
      await expect(fetch(`${url}/pets`)).rejects.toThrow();
      const groupAlive = () => {
        try {
          process.kill(-npm.pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      expect(groupAlive()).toBe(false);
    } finally {
      try {
        process.kill(-npm.pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
  });
});
