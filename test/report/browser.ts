/** Headless Chromium (Debian's) through playwright-core, recording console errors and every request. */
import { chromium, type Browser, type Page } from 'playwright-core';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface OpenedPage {
  page: Page;
  url: string;
  errors: string[];
  requests: string[];
}

/**
 * Opens a local file and waits for its scripts to finish (data-charts-ready or data-charts-error
 * on <body>, or `ready`); `init` runs in the page before any of its scripts.
 */
export async function openFile(browser: Browser, file: string, ready = 'body[data-charts-ready], body[data-charts-error]', init?: string): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  if (init) await page.addInitScript(init);
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()}`));
  const url = pathToFileURL(file).href;
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector(ready, { state: 'attached', timeout: 10_000 });
  return { page, url, errors, requests };
}
