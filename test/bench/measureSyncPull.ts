/**
 * @module `npm run bench -- --only sync`: how long a new kiosk takes to pull a hub of 100,000
 * animals (issue 20's target: under 30 s on this machine). A JSON-file hub and a new
 * JSON-file kiosk run as real CLI processes on loopback; the time runs from the kiosk's spawn
 * to its status reporting a finished pull, and the kiosk must then list every animal.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, startCli, waitForListening } from '../support/startCli.js';

/** The target of issue 20, item 7. */
export const SYNC_PULL_TARGET_SECONDS = 30;

/** Writes a hub data file of `animals` animals (ids 1…n). */
const writeHubFile = async (file: string, animals: number) => {
  const statuses = ['available', 'pending', 'sold'];
  const lines: string[] = [];
  for (let id = 1; id <= animals; id++) {
    lines.push(JSON.stringify({ id, name: `Animal ${id}`, categoryId: 1 + (id % 7), status: statuses[id % 3] }));
  }
  await writeFile(file, `{"format":2,"nextId":${animals + 1},"pets":[\n${lines.join(',\n')}\n],"idempotencyKeys":[]}\n`);
};

/** The key a bench hub accepts, and the one its kiosk serves with. */
export const HUB_KEY = 'bench-sync-hub-key-0001';
const KIOSK_KEY = 'bench-sync-kiosk-key-0001';

/**
 * Starts a new kiosk on `kioskFile` against the hub at `hubUrl`, waits for its status to
 * report a finished pull, checks that it then lists `animals` animals, and stops it. Resolves
 * with the seconds from its spawn to the finished pull, and from its listening to it.
 */
export const pullIntoNewKiosk = async (
  kioskFile: string,
  hubUrl: string,
  animals: number,
): Promise<{ seconds: number; secondsAfterListening: number }> => {
  const started = performance.now();
  const kiosk = runCli([
    'serve',
    kioskFile,
    '--port',
    '0',
    '--api-key',
    KIOSK_KEY,
    '--quiet',
    '--sync-with',
    hubUrl,
    '--sync-key',
    HUB_KEY,
    '--sync-interval',
    '1',
  ]);
  try {
    const url = await waitForListening(kiosk);
    const listening = performance.now();
    const headers = { authorization: `Bearer ${KIOSK_KEY}` };
    for (;;) {
      const status = (await (await fetch(`${url}/sync/status`, { headers })).json()) as { lastPull: string | null; problem: string | null };
      if (status.lastPull !== null) break;
      if (performance.now() - started > 120_000) throw new Error(`the kiosk did not finish its pull in 120 s: ${status.problem}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const caughtUp = performance.now();
    let held = 0;
    for (let next: string | undefined = `${url}/pets?limit=100`; next !== undefined; ) {
      const response: Response = await fetch(next, { headers });
      held += ((await response.json()) as unknown[]).length;
      const path = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      next = path === undefined ? undefined : new URL(path, url).href;
    }
    if (held !== animals) throw new Error(`the kiosk holds ${held} animals after its pull, not ${animals}`);
    return { seconds: (caughtUp - started) / 1000, secondsAfterListening: (caughtUp - listening) / 1000 };
  } finally {
    kiosk.child.kill('SIGTERM');
    await kiosk.exited;
  }
};

/** Measures one full pull of a new kiosk; resolves with the seconds it took, and logs them. */
export const measureSyncPull = async (folder: string, log: (line: string) => void, animals = 100_000): Promise<number> => {
  const hubFile = join(folder, 'sync-hub.json');
  await writeHubFile(hubFile, animals);
  const hub = await startCli(['serve', hubFile, '--port', '0', '--api-key', HUB_KEY, '--quiet']);
  try {
    const { seconds, secondsAfterListening } = await pullIntoNewKiosk(join(folder, 'sync-kiosk.json'), hub.url, animals);
    log(
      `sync: a new kiosk pulled ${animals} animals in ${seconds.toFixed(1)} s from its spawn (${secondsAfterListening.toFixed(1)} s after it listened); target < ${SYNC_PULL_TARGET_SECONDS} s: ${seconds < SYNC_PULL_TARGET_SECONDS ? 'met' : 'MISSED'}`,
    );
    return seconds;
  } finally {
    hub.child.kill('SIGTERM');
    await hub.exited;
  }
};
