import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Process-level tests start real servers; give them room on a 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
