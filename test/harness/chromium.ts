import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (which never downloads browsers), for the browser
 * tests. `chromiumMissing(what)` is the skip reason when it is not installed (`.ci/run` installs it).
 */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export function chromiumMissing(what: string): string | false {
  return existsSync(CHROMIUM)
    ? false
    : `Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH to run ${what}`;
}

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A browser with a fresh profile of its own, removed on close. `locale` (a BCP 47 tag such as
 * `id-ID`) sets the browser's language: its Accept-Language header, `navigator.language` and the
 * default of `Intl`; without it Chromium follows the machine's. `timezoneId` (an IANA zone such as
 * `Asia/Jakarta`) likewise replaces the machine's zone.
 */
export async function launchChromium(options: {
  viewport: { width: number; height: number };
  timeoutMs: number;
  javaScriptEnabled?: boolean;
  permissions?: string[];
  locale?: string;
  timezoneId?: string;
}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'tributary-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: LAUNCH_ARGS,
    viewport: options.viewport,
    timeout: options.timeoutMs,
    ...(options.javaScriptEnabled === undefined ? {} : { javaScriptEnabled: options.javaScriptEnabled }),
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    ...(options.locale === undefined ? {} : { locale: options.locale }),
    ...(options.timezoneId === undefined ? {} : { timezoneId: options.timezoneId }),
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
