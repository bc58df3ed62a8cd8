/**
 * @module Debian's Chromium for the browser tests, launched the one way this machine allows:
 * headless, and with its background connections off (the network refuses them, many at a time).
 */
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium, or fails with how to install it (`npm test` does): a browser
 * test never skips itself quietly.
 *
 * @param what What the browser is for, named in the failure.
 */
export const launchChromium = async (what: string): Promise<Browser> => {
  requireChromium(what);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
};

/**
 * Launches headless Chromium on a profile kept in `profile` (a folder): what a site stored
 * (IndexedDB, service workers, caches) is there again when it is launched on it again, as
 * after a browser restart.
 */
export const launchChromiumProfile = async (what: string, profile: string): Promise<BrowserContext> => {
  requireChromium(what);
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
};

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const requireChromium = (what: string) => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; npm test does when run as root on Debian) to test ${what}.`,
    );
  }
};
