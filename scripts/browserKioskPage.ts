/**
 * @module The browser kiosk's page (what `serve --browser-kiosk` serves as /kiosk/), made at
 * build time from examples/kiosk's page, so there is one page to keep: a change to the
 * example's page reaches the browser kiosk. Each change is anchored on one whole line of the
 * example's page; a line that is gone, or stands twice, fails the build instead of shipping a
 * page without the app's parts.
 */

/** One change: a line of the example's page (without its indentation) and the lines that stand there instead, indented as it was. */
type PageEdit = { line: string; becomes: string[] };

/** The app's changes to the example's page, in the page's order. */
const EDITS: PageEdit[] = [
  // The app's own icon, the one its manifest names.
  { line: '<link rel="icon" href="data:," />', becomes: ['<link rel="icon" href="icon.svg" />'] },
  {
    line: '<script type="module" src="kiosk.js"></script>',
    becomes: [
      // createBrowserKioskRoute writes the hub's base path here, for the worker to sync with.
      '<meta name="animal-store-hub" content="{{HUB_BASE}}" />',
      '<meta name="theme-color" content="#2f6f4f" />',
      '<link rel="manifest" href="manifest.webmanifest" />',
      // boot.js puts the page under its service worker first, then imports kiosk.js itself.
      '<script type="module" src="boot.js"></script>',
    ],
  },
  {
    line: '<p id="sync-state" class="sync-state" role="status" hidden></p>',
    // Where boot.js says why the kiosk cannot start (no service worker, not provisioned).
    becomes: [
      '<p id="sync-state" class="sync-state" role="status" hidden></p>',
      '<p id="setup-state" class="error" role="alert" hidden></p>',
    ],
  },
  {
    line: '<p>Catalogue: <code id="api-base"></code></p>',
    // Where boot.js says whether the browser keeps the kiosk's storage, and how much is used.
    becomes: ['<p>Catalogue: <code id="api-base"></code></p>', '<p id="storage-state">Storage: not measured yet.</p>'],
  },
];

/**
 * Makes the browser kiosk's page from the text of examples/kiosk/index.html. Throws, naming
 * the line, when a line it changes is not in the page exactly once.
 * @param examplePage The example's page, as read from its file.
 */
export const browserKioskPage = (examplePage: string): string => {
  const lines = examplePage.split('\n');
  for (const { line, becomes } of EDITS) {
    const found = lines.flatMap((text, index) => (text.trim() === line ? [index] : []));
    if (found.length !== 1) {
      throw new Error(
        `examples/kiosk/index.html must have the line ${line} exactly once (it has it ${found.length} times): ` +
          'scripts/browserKioskPage.ts makes the browser kiosk\u2019s page from it by changing that line',
      );
    }
    const index = found[0]!;
    const indent = lines[index]!.slice(0, lines[index]!.indexOf(line));
    lines.splice(index, 1, ...becomes.map((text) => indent + text));
  }
  return lines.join('\n');
};
