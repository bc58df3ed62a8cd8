/** @module Builds dist/browser/ (scripts/buildBrowserFiles.ts) for the browser tests, so they test the code as it is now. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../support/nodeProcess.js';

/** Runs the browser part of `npm run build`: the worker scripts and the kiosk app, into dist/browser/. */
export const buildBrowserFiles = async (): Promise<void> => {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/buildBrowserFiles.ts')], {
    cwd: REPO_ROOT,
    timeout: 60_000,
  });
};
