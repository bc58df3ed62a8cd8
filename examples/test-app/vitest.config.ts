/**
 * @module The test app's own vitest setup: `npx vitest run --root examples/test-app` (or
 * `--config examples/test-app/vitest.config.ts`; `root` keeps it to this folder either way).
 * In your app, none of this is needed. Here, the `animal-store-source` condition makes
 * `animal-store/…` imports resolve to this repository's TypeScript source, not a build.
 */
import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  ssr: { resolve: { conditions: ['animal-store-source', ...defaultServerConditions] } },
  test: { include: ['**/*.test.ts'] },
});
