/**
 * Opens a report in a real headless Chromium (Debian's package, driven by playwright-core), offline: any request
 * that is not the file itself is refused and counted. Returns what a person would see: every chart with its
 * declared and drawn data points, the page's errors, and a screenshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** Where the tests keep their screenshots (git-ignored): the test's output a person can look at. */
export const SCREENSHOTS = path.join(import.meta.dirname, '..', '..', '.tmp', 'test-output', 'report');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export interface RenderedChart { id: string; declared: number; drawn: number; width: number; height: number }
export interface Rendered { title: string; charts: RenderedChart[]; errors: string[]; requests: string[]; text: string; printed?: { pages: number; unbreakable: number } }

/**
 * `pdf`: also print the page to this file as the print stylesheet lays it out (A4), and count its pages. `part`: also
 * a screenshot of the elements a selector matches, from the first one's top to the last one's bottom.
 */
export async function openReport(file: string, o: { screenshot?: string; width?: number; pdf?: string; part?: { selector: string; path: string } } = {}): Promise<Rendered> {
  const profile = mkdtempSync(path.join(tmpdir(), 'seo-etl-chromium-'));
  // The browser only renders: under the date guard's libfaketime (LD_PRELOAD) Chromium hangs, so it runs without it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && k !== 'LD_PRELOAD' && !k.startsWith('FAKETIME'))) as Record<string, string>;
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, env, viewport: { width: o.width ?? 1200, height: 900 }, offline: true });
  const errors: string[] = [];
  const requests: string[] = [];
  try {
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const charts = await page.$$eval('figure.chart', (figs) => figs.map((f) => {
      const svg = f.querySelector('svg');
      const box = svg?.getBoundingClientRect();
      return {
        id: f.getAttribute('data-chart') ?? '',
        declared: Number(f.getAttribute('data-points')),
        drawn: svg ? svg.querySelectorAll('[ecmeta_ssr_type="chart"]').length : 0,
        width: box?.width ?? 0,
        height: box?.height ?? 0,
      };
    }));
    if (o.screenshot) await page.screenshot({ path: o.screenshot, fullPage: true });
    if (o.part) {
      const boxes = await page.$$eval(o.part.selector, (els) => els.map((e) => {
        const b = e.getBoundingClientRect();
        return { top: b.top + (globalThis as unknown as { scrollY: number }).scrollY, bottom: b.bottom + (globalThis as unknown as { scrollY: number }).scrollY, width: b.right };
      }));
      if (boxes.length) {
        const top = Math.max(0, Math.min(...boxes.map((b) => b.top)) - 8);
        await page.screenshot({ path: o.part.path, fullPage: true, clip: { x: 0, y: top, width: Math.max(...boxes.map((b) => b.width)) + 16, height: Math.max(...boxes.map((b) => b.bottom)) + 8 - top } });
      }
    }
    let printed: Rendered['printed'];
    if (o.pdf) {
      await page.emulateMedia({ media: 'print' });
      // Charts that a page break may not cut, as the print stylesheet says.
      const unbreakable = await page.$$eval('figure.chart', (figs) => figs.filter((f) => (globalThis as unknown as { getComputedStyle(e: unknown): { breakInside: string } }).getComputedStyle(f).breakInside === 'avoid').length);
      const pdf = await page.pdf({ path: o.pdf, format: 'A4', printBackground: true });
      printed = { pages: (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length, unbreakable };
    }
    return { title: await page.title(), charts, errors, requests, text: await page.innerText('body'), printed };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
