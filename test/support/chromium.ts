/**
 * @module Debian's Chromium for the browser tests, launched the one way this machine allows:
 * headless, and with its background connections off (the network refuses them, many at a time).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium, or fails with how to install it (`npm test` does): a browser
 * test never skips itself quietly.
 *
 * @param what What the browser is for, named in the failure.
 */
export const launchChromium = async (what: string): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; npm test does when run as root on Debian) to test ${what}.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
};
