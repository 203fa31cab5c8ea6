import { describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLocalUrl, makeOffline, type ScanCache, thirdPartyReferences } from '../../harness/report/offline.js';
import { diskScanCache } from '../../harness/report/scan-cache.js';
import { maskUrl } from '../../harness/report/mask.js';
import { parseProgress, PROGRESS_MARKER } from '../../harness/report/progress.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('thirdPartyReferences', () => {
  it('finds remote scripts, stylesheets, images and fonts in the HTML', () => {
    const html = `<html><head>
      <script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>
      <link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">
      <style>@font-face{src:url(https://fonts.gstatic.com/x.woff2)}</style>
      </head><body><img src="http://cdn.example.com/logo.png"></body></html>`;
    const found = thirdPartyReferences(html).map((r) => r.context);
    expect(found).toEqual(expect.arrayContaining(['<script src>', '<link href>', '<img src>', 'CSS url()']));
  });

  it('looks inside inlined data: scripts for fetch(), import(), beacons and sockets', () => {
    const js =
      'fetch("https://api.example.com/track");import("https://esm.sh/x");navigator.sendBeacon("https://b.example/e");new ' +
      'WebSocket("wss://ws.example/s")';
    const found = thirdPartyReferences(`<script src="data:text/javascript;base64,${b64(js)}"></script>`);
    expect(found.map((r) => r.context).sort()).toEqual(['WebSocket/EventSource/Worker', 'fetch()', 'import()', 'sendBeacon()']);
    expect(found.every((r) => r.where.startsWith('data:text/javascript'))).toBe(true);
  });

  it('ignores links a reader may click, namespaces and this machine', () => {
    const html = `<a href="https://allurereport.org">Powered by</a><svg xmlns="http://www.w3.org/2000/svg"></svg>
      <script src="http://127.0.0.1:8080/x.js"></script><img src="http://localhost/a.png">
      <script src="data:text/javascript;base64,${b64('fetch("http://[::1]:9/x");const u="https://example.com/docs"')}"></script>`;
    expect(thirdPartyReferences(html)).toEqual([]);
    expect(isLocalUrl('http://127.0.0.1:1/x')).toBe(true);
    expect(isLocalUrl('https://example.com')).toBe(false);
  });
});

describe('thirdPartyReferences with a cache of scans', () => {
  const page = (js: string) => `<html><script src="data:text/javascript;base64,${b64(js)}"></script></html>`;
  const recording = (): ScanCache & { keys: string[]; planted: Map<string, { context: string; url: string }[]> } => {
    const planted = new Map<string, { context: string; url: string }[]>();
    const keys: string[] = [];
    return {
      keys,
      planted,
      get: (k) => planted.get(k),
      set: (k, found) => {
        keys.push(k);
        planted.set(k, found);
      },
    };
  };

  it('scans an inlined script once: the same script again is answered from the cache, another one is scanned', () => {
    const cache = recording();
    const js = 'fetch("https://api.example.com/track")';
    expect(thirdPartyReferences(page(js), cache).map((r) => r.url)).toEqual(['https://api.example.com/track']);
    expect(cache.keys).toHaveLength(1);
    // What the cache says for that script is what a later scan reports (the script is not decoded and scanned again).
    cache.planted.set(cache.keys[0]!, [{ context: 'fetch()', url: 'https://planted.example/x' }]);
    const again = thirdPartyReferences(page(js), cache);
    expect(again).toEqual([{ where: 'data:text/javascript #1', context: 'fetch()', url: 'https://planted.example/x' }]);
    // One byte more is another script: scanned, not taken from the cache.
    expect(thirdPartyReferences(page(`${js};`), cache).map((r) => r.url)).toEqual(['https://api.example.com/track']);
    expect(cache.keys).toHaveLength(2);
  });

  it('keeps scans on disk, and reads none from a folder others may write to', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'mpsi-scan-')), 'cache');
    const js = 'new WebSocket("wss://ws.example/s")';
    expect(thirdPartyReferences(page(js), diskScanCache(dir))).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const disk = diskScanCache(dir);
    const [file] = readdirSync(dir);
    const key = file!.replace(/\.json$/, '');
    expect(disk.get(key)).toEqual([{ context: 'WebSocket/EventSource/Worker', url: 'wss://ws.example/s' }]);
    chmodSync(dir, 0o777);
    expect(disk.get(key)).toBeUndefined();
    chmodSync(dir, 0o700);
    expect(disk.get('0'.repeat(64))).toBeUndefined();
  });
});

describe('makeOffline', () => {
  it("removes Allure's analytics and adds a Content-Security-Policy", () => {
    const stock = `<!DOCTYPE html><html><head>
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-LNDJ3J7WT0"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag(){dataLayer.push(arguments);}
        gtag('js', new Date());
        gtag('config', 'G-LNDJ3J7WT0', { "report": "awesome" });
    </script>
    <script>window.allureReportData = {};</script>
    </head><body></body></html>`;
    expect(thirdPartyReferences(stock).length).toBeGreaterThan(0);
    const out = makeOffline(stock);
    expect(thirdPartyReferences(out)).toEqual([]);
    expect(out).not.toContain('gtag');
    expect(out).toContain('window.allureReportData = {};');
    expect(out).toMatch(/<head>\s*<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  });
});

describe('small helpers', () => {
  it('masks credentials and query values in URLs', () => {
    expect(maskUrl('https://user:pw@sandbox.example/api?token=abc&x=1')).toBe('https://sandbox.example/api?token=***&x=***');
    expect(maskUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
  });

  it('parses progress lines and nothing else', () => {
    expect(parseProgress(`${PROGRESS_MARKER}{"kind":"wait","id":"1","check":"c","what":"payment.updated","timeoutMs":5}`)).toMatchObject({
      kind: 'wait',
      what: 'payment.updated',
    });
    expect(parseProgress('hello')).toBeUndefined();
    expect(parseProgress(`${PROGRESS_MARKER}{broken`)).toBeUndefined();
  });
});
