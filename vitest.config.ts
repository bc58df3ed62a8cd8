import { defineConfig } from 'vitest/config';

// Where a test lives says what it tests (test/<folder of the code>/…); its name says how it
// runs: `*.test.ts` in process, in seconds; `*.system.test.ts` starts processes, servers,
// a browser or a database. `npm test` runs both; `npm run test:unit` the first alone.
export default defineConfig({
  test: {
    // Runs before each test file, even where the modules are not imported again for it.
    setupFiles: ['test/support/removeTempFolders.ts'],
    projects: [
      {
        extends: true,
        // In-process tests leave nothing behind them (they restore env stubs, timers and the
        // umask themselves), so a process runs file after file without re-importing the
        // modules for each, and two such processes keep both of a 2-core machine's cores busy
        // (vitest's default is one fewer worker than cores). Forks, not threads: a worker
        // thread may not change the umask, which the JSON-file storage's tests do.
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.system.test.ts'],
          pool: 'forks',
          isolate: false,
          maxWorkers: 2,
          // A few read and write tens of megabytes or start a worker thread: on a slow 2-core
          // machine, beside the system tests, one took 5.1 s where it takes 1.5 s alone, past
          // vitest's 5 s default. A hung test still fails within seconds.
          testTimeout: 15_000,
        },
      },
      {
        extends: true,
        // Real processes on a 2-core machine: give them room, and run one file at a time, so a
        // flood or fuzz suite never starves the servers another file is timing.
        test: {
          name: 'system',
          include: ['test/**/*.system.test.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
