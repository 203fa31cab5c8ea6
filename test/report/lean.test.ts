/**
 * A reports folder that stays small: history/ keeps the last N runs, allure-results/ is
 * packed into one file once the page is built, and `report` rebuilds the page from the pack.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { offlinePage, renderSingleFileReport } from '../../harness/report/allure.js';
import { makeOffline } from '../../harness/report/offline.js';
import { packAllureResults, unpackAllureResults } from '../../harness/report/allure-pack.js';
import { reportPaths } from '../../harness/report/paths.js';
import { checkTraffic, runTraffic, writeSuiteWebhooks } from '../../harness/report/traffic.js';
import { MAX_EXCHANGES_KEPT, mergeRecorder, newRecorder, recordExchange, withRecorder } from '../../harness/check/context.js';
import { type Exchange, wireBytes } from '../../harness/http/exchange.js';
import { readResults } from '../../harness/run/results.js';
import { compactedPageData, compactPageData } from '../../harness/report/compact-page.js';
import { exchangeText } from '../../harness/report/exchange-text.js';
import { DEFAULT_HISTORY_RUNS, historyRunsOf } from '../../harness/report/finish.js';
import { schemaProblems } from '../../harness/profile/schema.js';
import { runCli, secretHits, SMALL_SUITE, tempReports } from '../cli/helpers.js';
import { profileWith } from '../doctor/support.js';

function resultsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-lean-'));
  const results = join(dir, 'allure-results');
  mkdirSync(results);
  const uuid = '0b7e2f6a-1111-4222-8333-944455556666';
  writeFileSync(
    join(results, `${uuid}-result.json`),
    JSON.stringify({
      uuid,
      historyId: 'h1',
      name: 'a check',
      fullName: 'lean/one',
      status: 'passed',
      stage: 'finished',
      start: 1,
      stop: 2,
      labels: [
        { name: 'epic', value: 'e' },
        { name: 'exercised', value: 'env.code.integer' },
      ],
      steps: [],
      attachments: [],
      parameters: [],
    }),
  );
  return dir;
}

function historyLines(file: string): number {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

describe('history/', () => {
  it('keeps the last N runs, not every run', async () => {
    const dir = resultsDir();
    const history = join(dir, 'history', 'allure-history.jsonl');
    const render = () =>
      renderSingleFileReport({
        results: join(dir, 'allure-results'),
        output: join(dir, 'allure-report'),
        name: 'lean',
        history,
        historyLimit: 2,
      });
    for (let i = 0; i < 4; i++) await render();
    expect(historyLines(history)).toBe(2);
    // Each line keeps what the history view shows, without the long `exercised` label lists.
    const text = readFileSync(history, 'utf8');
    expect(text).toContain('"name":"epic"');
    expect(text).not.toContain('"exercised"');
  }, 60_000);
});

describe('history/ bound from the profile (reports.history)', () => {
  it('the flag wins, then the profile, then the default', () => {
    expect(historyRunsOf(3, { reports: { history: 7 } })).toBe(3);
    expect(historyRunsOf(0, { reports: { history: 7 } })).toBe(0);
    expect(historyRunsOf(undefined, { reports: { history: 7 } })).toBe(7);
    expect(historyRunsOf(undefined, { reports: { history: 0 } })).toBe(0);
    expect(historyRunsOf(undefined, { reports: {} })).toBe(DEFAULT_HISTORY_RUNS);
    expect(historyRunsOf(undefined, {})).toBe(20);
  });

  it('the schema takes a whole number of runs, 0 to 1000, and nothing else under reports', () => {
    const base = JSON.parse(
      readFileSync(
        profileWith(() => undefined),
        'utf8',
      ),
    ) as Record<string, unknown>;
    expect(schemaProblems({ ...base, reports: { history: 5 } })).toEqual([]);
    expect(schemaProblems({ ...base, reports: {} })).toEqual([]);
    for (const bad of [{ history: -1 }, { history: 1.5 }, { history: 1001 }, { history: '5' }, { keep: 5 }])
      expect(schemaProblems({ ...base, reports: bad }).join('\n'), JSON.stringify(bad)).toMatch(/\breports\b/);
  });

  it('a run keeps the runs the profile says when no --history is given', async () => {
    const dir = tempReports('history-profile');
    const profile = profileWith((p) => (p.reports = { history: 1 }));
    for (let i = 0; i < 2; i++) {
      const run = await runCli(['run', '--profile', profile, '--suite', SMALL_SUITE, '--webhooks', 'off', '--reports', dir]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    }
    // Without the profile's bound the second run would have added a second line (default 20).
    expect(historyLines(reportPaths(dir).history)).toBe(1);
  }, 180_000);
});

describe('allure-results packed', () => {
  it('packs the folder into one file and restores it byte for byte', () => {
    const dir = resultsDir();
    const folder = join(dir, 'allure-results');
    writeFileSync(join(folder, 'x-attachment.bin'), Buffer.from([0, 255, 10, 13]));
    const before = Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f)).toString('base64')]));
    const pack = join(dir, 'allure-results.json.gz');
    expect(packAllureResults(folder, pack)).toBeGreaterThan(0);
    expect(existsSync(folder)).toBe(false);
    expect(unpackAllureResults(pack, folder)).toBe(true);
    expect(Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f)).toString('base64')]))).toEqual(before);
    expect(existsSync(pack)).toBe(false);
  });

  it('refuses a pack that names a file outside its folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-lean-'));
    const pack = join(dir, 'p.json.gz');
    writeFileSync(pack, gzipSync(JSON.stringify({ format: 'mpsi-allure-results/1', files: { '../evil': '' } })));
    expect(() => unpackAllureResults(pack, join(dir, 'allure-results'))).toThrow(/outside its folder/);
  });

  it('a run leaves the pack, not the folder; `report` rebuilds the page from it; --keep-allure-results keeps the folder', async () => {
    const dir = tempReports('lean');
    const paths = reportPaths(dir);
    const made: string[] = [];
    const watcher = watch(dir, (_event, name) => {
      if (name) made.push(String(name));
    });
    const run = await runCli(['run', '--suite', SMALL_SUITE, '--webhooks', 'off', '--reports', dir, '--history', '1']);
    watcher.close();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // vitest keeps the Allure results in memory and writes them once, packed: no folder of small files is made during the
    // run, then read and deleted.
    expect(made).not.toContain('allure-results');
    expect(made).toContain('allure-results.json.gz');
    expect(existsSync(paths.allureResults)).toBe(false);
    expect(existsSync(paths.allureResultsPack)).toBe(true);
    expect(existsSync(paths.allureHtml)).toBe(true);
    // The page's data files travel in one gzipped blob: the page is the app and little more.
    const pageHtml = readFileSync(paths.allureHtml, 'utf8');
    const data = compactedPageData(pageHtml);
    expect(data?.size).toBeGreaterThan(10);
    expect(pageHtml).not.toContain('Promise.allSettled([d(');
    expect(statSync(paths.allureHtml).size).toBeLessThan(5 * 1024 * 1024);
    const again = await runCli(['report', '--reports', dir, '--keep-allure-results', '--history', '1']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(existsSync(paths.allureHtml)).toBe(true);
    expect(existsSync(paths.allureResults)).toBe(true);
    expect(existsSync(paths.allureResultsPack)).toBe(false);
    expect(historyLines(paths.history)).toBe(1);
    // One attachment per exchange shown: request and response together.
    const steps = readdirSync(paths.allureResults)
      .filter((f) => f.endsWith('-result.json'))
      .flatMap(
        (f) =>
          (JSON.parse(readFileSync(join(paths.allureResults, f), 'utf8')) as { steps: { name: string; steps: { name: string }[] }[] })
            .steps,
      )
      .filter((st) => /^x-\d+ /.test(st.name));
    expect(steps.length).toBeGreaterThan(0);
    // allure-vitest keeps each attachment as a sub-step of the exchange's step.
    for (const st of steps) expect(st.steps.map((x) => x.name).filter((n) => !n.startsWith('repro '))).toEqual(['request and response']);
    // Each one is the text of the exchange as stored in results/ (written after the run, not sent by the workers).
    const stored = new Map(readResults(paths.results).map((r) => [r.checkId, r]));
    let texts = 0;
    for (const f of readdirSync(paths.allureResults).filter((n) => n.endsWith('-result.json'))) {
      const r = JSON.parse(readFileSync(join(paths.allureResults, f), 'utf8')) as {
        labels: { name: string; value: string }[];
        steps: { name: string; steps: { name: string; attachments?: { source: string }[] }[] }[];
      };
      const check = stored.get(r.labels.find((l) => l.name === 'checkId')!.value)!;
      for (const st of r.steps.filter((x) => /^x-\d+ /.test(x.name))) {
        const source = st.steps.find((x) => x.name === 'request and response')!.attachments![0]!.source;
        const ex = check.exchanges.find((x) => x.id === st.name.split(' ')[0])!;
        expect(readFileSync(join(paths.allureResults, source), 'utf8')).toBe(exchangeText(ex));
        texts += 1;
      }
    }
    expect(texts).toBe(steps.length);
    // The run's traffic is the sum of every check's exchanges, in run.json and in the certificate alike.
    const results = readResults(paths.results);
    const traffic = JSON.parse(readFileSync(paths.runMeta, 'utf8')).traffic;
    expect(traffic.requests).toBe(results.reduce((n, r) => n + r.exchanges.length, 0));
    expect(traffic.requests).toBeGreaterThan(0);
    expect(traffic.bytesSent).toBe(results.reduce((n, r) => n + (r.traffic?.bytesSent ?? 0), 0));
    expect(traffic.bytesReceived).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(paths.certificateJson, 'utf8')).traffic).toEqual(traffic);
    expect(readFileSync(paths.certificateMd, 'utf8')).toContain(`| Traffic | ${traffic.requests} requests by the checks`);
  }, 120_000);
});

describe('traffic', () => {
  /** What a recorder tallies of the exchanges given, recorded as a check's client records them. */
  async function tallied(exchanges: Exchange[]) {
    const rec = newRecorder(['env.code.integer']);
    await withRecorder(rec, async () => {
      for (const ex of exchanges) recordExchange(ex);
    });
    return rec.sent;
  }

  it('counts the wire bytes of each exchange, a response only when there was one', async () => {
    const t = await tallied([
      {
        id: 'x-1',
        label: 'a',
        timings: { startedAt: '', totalMs: 1 },
        request: { method: 'POST', url: 'http://h:1/p?q=1', headers: { a: 'b' }, body: Buffer.from('xyz') },
        response: { status: 200, headers: { c: ['d', 'e'] }, body: Buffer.from('ok'), truncated: false },
      },
      {
        id: 'x-2',
        label: 'b',
        timings: { startedAt: '', totalMs: 1 },
        request: { method: 'GET', url: 'http://h:1/', headers: {}, body: Buffer.alloc(0) },
        error: { kind: 'connection', message: 'reset' },
      },
    ]);
    // "POST /p?q=1 HTTP/1.1\r\n" 22 + "a: b\r\n" 6 + "\r\n" 2 + 3; "GET / HTTP/1.1\r\n" 16 + 2
    expect(t).toMatchObject({ requests: 2, bytesSent: 22 + 6 + 2 + 3 + 16 + 2, bytesReceived: 'HTTP/1.1 200\r\n'.length + 12 + 2 + 2 });
  });

  const sentEx = (id: string, totalMs = 2): Exchange => ({
    id,
    label: id,
    timings: { startedAt: '', totalMs, queuedMs: 1 },
    request: { method: 'POST', url: 'http://h:1/p', headers: {}, body: Buffer.from('xyz') },
    response: { status: 200, headers: {}, body: Buffer.from('ok'), truncated: false },
  });

  it("leaves out the webhook deliveries a check recorded: they are the target's requests, not ours", async () => {
    const t = await tallied([sentEx('x-1'), sentEx('wh-1'), sentEx('wh-2')]);
    expect(t.requests).toBe(1);
    expect(t).toEqual(await tallied([sentEx('x-1')]));
  });

  it('counts every request a check sent, not only the exchanges it keeps for the report', async () => {
    const rec = newRecorder(['env.code.integer']);
    const n = MAX_EXCHANGES_KEPT + 40;
    await withRecorder(rec, async () => {
      for (let i = 0; i < n; i++) recordExchange(sentEx(`x-${i}`));
      recordExchange(sentEx('wh-1'));
    });
    expect(rec.exchanges).toHaveLength(MAX_EXCHANGES_KEPT);
    const one = wireBytes(sentEx('x-0'));
    expect(rec.sent).toEqual({
      requests: n,
      bytesSent: n * one.sent,
      bytesReceived: n * one.received,
      roundTripMs: 2 * n,
      queuedMs: n,
    });
    // Joined from a property example's or a lane's recorder: its tally too, not only what it kept.
    const parent = newRecorder(['env.code.integer']);
    mergeRecorder(parent, rec);
    expect(parent.sent.requests).toBe(n);
    expect(checkTraffic(parent.sent)).toMatchObject({ requests: n, roundTripMs: 2 * n, queuedMs: n });
  });

  it('sums the checks of every worker and the receivers of every suite file', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'mpsi-lean-')), 'traffic');
    writeSuiteWebhooks(dir, 'webhook-events', 7);
    writeSuiteWebhooks(dir, 'webhook-ack', 5);
    const results = [
      { traffic: { requests: 3, bytesSent: 100, bytesReceived: 50 } },
      {},
      { traffic: { requests: 2, bytesSent: 10, bytesReceived: 5 } },
    ];
    expect(runTraffic(results, dir)).toEqual({
      requests: 5,
      webhooksReceived: 12,
      bytesSent: 110,
      bytesReceived: 55,
      throttledAnswers: 0,
      throttleWaitMs: 0,
    });
  });
});

describe('the page data, compacted', () => {
  const page = (entries: [string, string][]) =>
    `<html><body><script>window.allureReportData = {};</script>\n<script defer>\n      Promise.allSettled([` +
    `${entries.map(([n, v]) => `d("${n}","${Buffer.from(v).toString('base64')}")`).join(',')}])\n        ` +
    `.then(function(){\n          window.allureReportDataReady = true;\n        })\n    </script></body></html>`;

  it('carries every data file byte for byte, in less room', () => {
    const entries: [string, string][] = Array.from({ length: 50 }, (_, i) => [
      `data/test-results/${i}.json`,
      JSON.stringify({ i, name: 'a check that repeats itself', steps: 'x'.repeat(500) }),
    ]);
    entries.push(['data/attachments/a.txt', 'POST http://h/p\nX-Sign: abc\n\n{"é":"ü"}']);
    const html = page(entries);
    const out = compactPageData(html);
    expect(out.length).toBeLessThan(html.length / 5);
    expect(out).not.toContain('Promise.allSettled');
    expect(out).toContain('window.allureReportDataReady = true');
    const back = compactedPageData(out)!;
    expect([...back.keys()]).toEqual(entries.map(([n]) => n));
    for (const [n, v] of entries) expect(back.get(n)!.toString('utf8')).toBe(v);
  });

  it('leaves a page it does not recognise as it is', () => {
    const html = page([['a', 'b']]).replace('d("a"', 'other("a"');
    expect(compactPageData(html)).toBe(html);
  });

  it('made offline after compaction: the same page as made offline before it, and a third-party call still refused', () => {
    const stock = page([
      ['data/test-results/1.json', JSON.stringify({ name: 'fetch("https://x.example/y") gtag(1)', steps: 'x'.repeat(300) })],
      ['data/attachments/a.txt', 'GET https://api.example.com/p\n<script src="https://evil.example/a.js"></script>'],
    ]).replace(
      '<html>',
      '<html><head><script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>' +
        "<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script></head>",
    );
    expect(offlinePage(stock)).toBe(compactPageData(makeOffline(stock)));
    expect(compactedPageData(offlinePage(stock))?.size).toBe(2);
    const calling = stock.replace('<body>', '<body><img src="https://cdn.example.com/logo.png">');
    expect(() => offlinePage(calling)).toThrow(/third-party hosts.*<img src> https:\/\/cdn\.example\.com\/logo\.png/);
  });

  it('the secret scan finds a secret inside the compacted data', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mpsi-lean-')), 'index.html');
    writeFileSync(file, compactPageData(page([['data/attachments/s.txt', 'X-Secret: s3cr3t-planted-value-0123']])));
    expect(secretHits(file, ['s3cr3t-planted-value-0123']).length).toBeGreaterThan(0);
  });
});

describe('an exchange in the report', () => {
  it('is one text: the request as sent, then the response as received with its signature verdict', () => {
    const text = exchangeText({
      id: 'x-1',
      label: 'l',
      timings: { startedAt: '', totalMs: 1 },
      request: { method: 'POST', url: 'http://h/p', headers: { 'X-Sign': 'ab' }, body: '{"a":1}' },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"code":0}', truncated: false },
    });
    expect(text).toBe(
      'POST http://h/p\nX-Sign: ab\n\n{"a":1}\n\n──── response ────\nHTTP 200\ncontent-type: ' +
        'application/json\n\n{"code":0}\n\nresponse signature: not checked (no response, or an unsigned answer)',
    );
  });
});
