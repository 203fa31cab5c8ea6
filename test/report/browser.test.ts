import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { ROOT, runCli, SMALL_SUITE, tempReports } from '../cli/helpers.js';

/**
 * The single-file report as a person sees it: Debian's Chromium opens it from file://, the totals
 * are there, a failing test links its clause, and the page asks no other host for anything. The
 * screenshot lands in reports/report-browser-check.png for a person to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SKIP_REASON = `${CHROMIUM} is absent: install it with scripts/install-chromium.sh to run the browser check`;
const FAILED_CLAUSE = 'auth.response.signed';

let dir: string;
let server: Server | undefined;
let origin = '';
let browser: BrowserContext | undefined;
let userDataDir = '';
let runCode: number | null = null;
let runOutput = '';

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  dir = tempReports('browser');
  // A loopback server for the clause page, so the report's clause links are real http links to follow.
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8' })
      .end(readFileSync(file));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const run = await runCli([
    'run',
    '--fault',
    'resp-uppercase-hex',
    '--suite',
    SMALL_SUITE,
    '--webhooks',
    'off',
    '--reports',
    dir,
    '--report-url',
    origin,
  ]);
  runCode = run.code;
  runOutput = run.stdout + run.stderr;
  const { chromium } = await import('playwright-core');
  userDataDir = mkdtempSync(join(tmpdir(), 'mpsi-chromium-'));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
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
    viewport: { width: 1400, height: 1200 },
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

describe('the single-file HTML report in Chromium', () => {
  it('shows the totals and a failing test whose clause link leads to the clause, loading nothing from elsewhere', async (ctx) => {
    if (!HAVE_CHROMIUM) ctx.skip(SKIP_REASON);
    expect(runCode, runOutput).toBe(1);
    const page = browser!.pages()[0] ?? (await browser!.newPage());
    const requested: string[] = [];
    browser!.on('request', (r) => requested.push(r.url()));
    const fileUrl = pathToFileURL(join(dir, 'allure-report', 'index.html')).href;
    await page.goto(fileUrl);

    // Totals: every check of the suite ran and failed.
    const results = JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as {
      summary: { checks: { total: number; failed: number } };
    };
    const total = results.summary.checks.total;
    expect(total).toBeGreaterThan(0);
    await page.getByText('Total', { exact: true }).first().waitFor({ timeout: 15_000 });
    const body = await page.locator('body').innerText();
    expect(body).toMatch(new RegExp(`Total\\s+${total}\\b`));
    expect(body).toMatch(new RegExp(`Failed\\s+${results.summary.checks.failed}\\b`));
    expect(body).toContain('NON-CONFORMANT');
    mkdirSync(join(ROOT, 'reports'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'reports', 'report-browser-overview.png') });

    // A failing test, its finding and the link to the clause it failed.
    await page.getByText('refuses a query with neither number').first().click();
    await page.getByText(`FAILED ${FAILED_CLAUSE} (must)`).first().waitFor({ timeout: 15_000 });
    const link = page.locator('[data-testid="test-result-meta-link"] a', { hasText: FAILED_CLAUSE }).first();
    await link.waitFor({ timeout: 15_000 });
    expect(await link.getAttribute('href')).toBe(`${origin}/clauses.html#clause-${FAILED_CLAUSE}`);
    await page.screenshot({ path: join(ROOT, 'reports', 'report-browser-check.png'), fullPage: true });
    const [clausePage] = await Promise.all([browser!.waitForEvent('page', { timeout: 15_000 }), link.click()]);
    await clausePage.waitForLoadState();
    const row = clausePage.locator(':target');
    expect(await row.textContent()).toMatch(new RegExp(`${FAILED_CLAUSE.replace(/\./g, '\\.')}[\\s\\S]*failed`));

    // Nothing but the file itself, its inlined data and the loopback clause page was requested.
    const foreign = requested.filter(
      (u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:') && !u.startsWith(origin),
    );
    expect(foreign).toEqual([]);
  }, 60_000);
});
