/** @module The human-readable API reference page, drawn in the browser from the OpenAPI document. */
import { DEPRECATION, SUNSET } from './deprecation.js';

/**
 * The files of the reference renderer (Swagger UI), as an adapter serves them from where it
 * installed them: a file's bytes and media type, or `undefined` when there is no such file.
 */
export type DocsAssets = (name: string) => Promise<{ body: Uint8Array; type: string } | undefined>;

/** The renderer's files the page loads, beside it under `{base}/docs/`. */
export const DOCS_ASSET_NAMES = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;

/** The script that starts the renderer: served as a file, so the page needs no inline script. */
export const DOCS_START_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null });
});
`;

/** Only this origin's own files: no CDN, no inline script. */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const deprecationDate = new Date(Number(DEPRECATION.slice(1)) * 1000).toUTCString().slice(5, 16);
const sunsetDate = SUNSET.slice(5, 16);

/**
 * The page at `{base}/docs`. It always says what is deprecated (the target of getPet's
 * `Link: rel="deprecation"`), and draws the whole reference when the renderer's files are
 * available; otherwise it points at the OpenAPI document.
 */
export const docsPage = (base: string, withRenderer: boolean): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Animal Store API reference</title>
${withRenderer ? '<link rel="stylesheet" href="docs/swagger-ui.css">\n' : ''}<style>
body { margin: 0; font-family: system-ui, sans-serif; color: #1f2933; }
header, #deprecation { max-width: 1460px; margin: 0 auto; padding: 1rem 20px 0; }
#deprecation { border-left: 4px solid #d97706; background: #fffbeb; padding: 0.5rem 1rem; margin-top: 1rem; }
code { background: #f1f5f9; padding: 0 0.25rem; }
</style>
</head>
<body>
<header>
<h1>Animal Store API</h1>
<p>Every operation lives under <code>${base}</code> and needs <code>Authorization: Bearer &lt;key&gt;</code>. The machine-readable description is <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
</header>
<section id="deprecation">
<h2>Deprecation: GET ${base}/pets/{petId}</h2>
<p>Getting one animal by id was deprecated on ${deprecationDate} and is removed on ${sunsetDate} (its <code>Sunset</code>). Until then it works as before and every answer says so in its <code>Deprecation</code>, <code>Sunset</code> and <code>Link</code> headers; from then on it answers <code>410 Gone</code>.</p>
<p>Use <code>GET ${base}/pets</code> instead, with the <code>status</code> filter and the <code>Link: rel="next"</code> pages.</p>
</section>
${
  withRenderer
    ? '<div id="reference"></div>\n<script src="docs/swagger-ui-bundle.js"></script>\n<script src="docs/start.js"></script>'
    : '<p style="max-width:1460px;margin:1rem auto;padding:0 20px">The interactive reference is not installed with this server (<code>npm install swagger-ui-dist</code> beside animal-store adds it); meanwhile read <a href="openapi.json">openapi.json</a>.</p>'
}
</body>
</html>
`;
