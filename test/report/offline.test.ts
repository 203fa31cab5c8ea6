import { describe, expect, it } from 'vitest';
import { isLocalUrl, makeOffline, thirdPartyReferences } from '../../harness/report/offline.js';
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
