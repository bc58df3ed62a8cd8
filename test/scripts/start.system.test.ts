/** @module `npm start` runs the JavaScript `npx animal-store` runs: the package's own build of the sources. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, spawnProcess, waitForOutput } from '../support/nodeProcess.js';
import { tempFolder } from '../support/tempFolder.js';

/** Every JavaScript file under `folder`, by its path there, with its text. */
const javaScriptUnder = (folder: string): Map<string, string> =>
  new Map(
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .sort()
      .map((file) => [file, readFileSync(path.join(folder, file), 'utf8')]),
  );

/** A bundle's text without the comments esbuild writes before each module, naming its path. */
const withoutPathComments = (text: string): string => text.replace(/^\/\/ .*\.js\n/gm, '');

describe('npm start', () => {
  // The first start compiles, bundles and builds the browser's files; the test compiles and bundles again.
  it('Should run, byte for byte, the JavaScript the package build emits', { timeout: 120_000 }, () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    // Node alone, no loader: scripts/start.mjs runs the compiled copy in its own process.
    expect(manifest.scripts.start).toBe('exec node scripts/start.mjs');
    const started = spawnSync('npm', ['start', '--silent', '--', '--version'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(started.status, started.stderr).toBe(0);
    expect(started.stdout.trim()).toBe(manifest.version);

    // What npm start ran: the bin bundled from the compiled copy of the sources as they are.
    const where = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "console.log(await (await import('./scripts/compiledForStart.mjs')).compiledForStart())"],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(where.status, where.stderr).toBe(0);
    const bin = where.stdout.trim();
    expect(path.basename(bin)).toBe('animal-store.js');
    const compiled = path.dirname(path.dirname(bin));
    // The package's build, type check included, as `npm run build` emits dist/ (declarations aside).
    const built = tempFolder();
    const tsc = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', built, '--declaration', 'false'],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(tsc.status, tsc.stdout).toBe(0);

    const published = javaScriptUnder(built);
    expect(published.size).toBeGreaterThan(100);
    expect(published.has(path.join('adapters', 'cli.js'))).toBe(true);
    const modules = javaScriptUnder(compiled);
    // Beside them, as beside dist/: the bundled bin (compared below) and the browser's files.
    for (const file of modules.keys()) if (/^(bin|browser)\//.test(file.split(path.sep).join('/'))) modules.delete(file);
    expect(modules).toEqual(published);

    // And the bin bundled from that build as `npm run build` bundles dist/ (in the package, whose
    // manifest says its modules are ES modules): the same code, esbuild's comments naming each module's path aside.
    copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(built, 'package.json'));
    const bundled = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await (await import('./scripts/bundleBin.mjs')).bundleBin(${JSON.stringify(built)})`],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(bundled.status, bundled.stderr).toBe(0);
    const code = (folder: string) =>
      new Map([...javaScriptUnder(path.join(folder, 'bin'))].map(([file, text]) => [file, withoutPathComments(text)]));
    expect(code(compiled).size).toBe(2);
    expect(code(compiled)).toEqual(code(built));
  });

  it('Should serve the kiosk web app with --browser-kiosk, its files built beside its bin', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    // What `npm start -- serve … --browser-kiosk` runs, in this process's Node.
    const started = spawnProcess(process.execPath, [
      'scripts/start.mjs',
      'serve',
      file,
      '--port',
      '0',
      '--api-key',
      'start-kiosk-key-0123456789',
      '--browser-kiosk',
      '--quiet',
    ]);
    try {
      const [, url] = await waitForOutput(started, /listening on (http:\/\/[^\s/]+)/, 60_000);
      const page = await fetch(`${url}/kiosk/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      expect((await fetch(`${url}/kiosk/worker.js`)).status).toBe(200);
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
    }
  }, 90_000);
});
