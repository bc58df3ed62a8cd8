import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnimalStoreServer, createMemoryStorage, findSwaggerUiAssets, serve } from '../../../adapters/node.js';
import { createPetService } from '../../../core/index.js';

const KEY = 'docs-test-key-0123456';
const SWAGGER_UI = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

let server: AnimalStoreServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the reference page on the standalone server', () => {
  it('draws the reference with swagger-ui-dist, served from the server itself', async () => {
    server = await serve({ storage: createMemoryStorage(), keys: [KEY], port: 0 });
    const page = await (await fetch(`${server.url}/docs`)).text();
    expect(page).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(page).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${server.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Buffer.from(await bundle.arrayBuffer()).equals(readFileSync(path.join(SWAGGER_UI, 'swagger-ui-bundle.js')))).toBe(true);
    const css = await fetch(`${server.url}/docs/swagger-ui.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe(readFileSync(path.join(SWAGGER_UI, 'swagger-ui.css'), 'utf8'));
  });

  it('serves only the files the page loads, not the rest of the package', async () => {
    server = await serve({ storage: createMemoryStorage(), keys: [KEY], port: 0 });
    for (const name of ['index.html', 'swagger-ui-bundle.js.map', 'package.json', '..%2Fpackage.json', 'swagger-initializer.js']) {
      const answer = await fetch(`${server.url}/docs/${name}`);
      expect(answer.status, name).toBe(404);
      expect(await answer.json()).toMatchObject({ code: 'not_found' });
    }
    const assets = findSwaggerUiAssets();
    expect(await assets?.('../package.json')).toBeUndefined();
    expect(await assets?.('index.html')).toBeUndefined();
  });

  it('finds no renderer when swagger-ui-dist is not installed: the page still works and links openapi.json', async () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module 'swagger-ui-dist/package.json'"), { code: 'MODULE_NOT_FOUND' });
    };
    const docsAssets = findSwaggerUiAssets(missing);
    expect(docsAssets).toBeUndefined();
    // What serve() builds when the package is missing: the service without docsAssets.
    const service = createPetService({ storage: createMemoryStorage(), keys: [KEY], ...(docsAssets ? { docsAssets } : {}) });
    const page = await service(new Request('http://127.0.0.1/v1/docs'));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('swagger-ui-bundle.js');
    expect(html).toContain('<a href="openapi.json">');
    expect((await service(new Request('http://127.0.0.1/v1/docs/swagger-ui-bundle.js'))).status).toBe(404);
  });
});
