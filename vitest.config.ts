import { defineConfig } from 'vitest/config';

// Where a test lives says what it tests (test/<folder of the code>/…); its name says how it
// runs: `*.test.ts` in process, in seconds; `*.system.test.ts` starts processes, servers,
// a browser or a database. `npm test` runs both; `npm run test:unit` the first alone.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/**/*.system.test.ts'] },
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
