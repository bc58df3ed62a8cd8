/** @module The service's documents: the OpenAPI document, and the reference page drawn from it. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { DOCS_ASSET_NAMES, DOCS_CONTENT_SECURITY_POLICY, DOCS_START_SCRIPT, type DocsAssets, docsPage } from '../http/docsPage.js';
import { createOpenApiDocument } from '../http/openApiDocument.js';
import type { RouteHandler } from './createRouter.js';

/** GET {base}/openapi.json: the document, made once per base clients see (mount path included) and kept. */
export const openApiRoute = (): RouteHandler => {
  const documents = new Map<string, string>();
  return async ({ base, respond, headers }) => {
    let document = documents.get(base);
    if (document === undefined) {
      document = JSON.stringify(createOpenApiDocument(base));
      documents.set(base, document);
    }
    return respond.jsonText(200, document, headers);
  };
};

/** GET {base}/docs: the reference page, with its renderer when `assets` are there. */
export const docsRoute =
  (assets: DocsAssets | undefined): RouteHandler =>
  async ({ base, respond, headers }) =>
    respond.body(200, docsPage(base, assets !== undefined), {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
    });

/** GET {base}/docs/{asset}: the renderer's files, by name from a fixed list, and the script that starts it. */
export const docsAssetRoute =
  (assets: DocsAssets | undefined): RouteHandler =>
  async ({ asset = '', respond, headers }) => {
    if (asset === 'start.js' && assets) {
      return respond.body(200, DOCS_START_SCRIPT, {
        ...headers,
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-cache',
      });
    }
    const file = assets && (DOCS_ASSET_NAMES as readonly string[]).includes(asset) ? await assets(asset) : undefined;
    if (!file) throw new AnimalStoreError('not_found', 'The reference page has no such file.');
    return respond.body(200, file.body, { ...headers, 'content-type': file.type, 'cache-control': 'public, max-age=3600' });
  };
