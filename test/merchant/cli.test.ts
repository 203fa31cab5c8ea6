/**
 * The merchant commands end to end: `receiver` exit codes and report files against the test
 * receiver (correct, faulty, silent), flag errors, and `serve --audit` writing the client report.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditMain } from '../../harness/cli/audit.js';
import { main } from '../../harness/cli/main.js';
import { clientFaults, runClient, startClientReceiver } from './client-app.js';
import { startReceiver } from './receiver-app.js';
import { secretHits } from '../cli/helpers.js';

const ID = 'M100001';
const SECRET = 'sk_test_cli_receiver_8d2e4f6a1b3c';
const ENV = 'MPSI_TEST_RECEIVER_SECRET';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  delete process.env[ENV];
});

const tmp = () => mkdtempSync(join(tmpdir(), 'merchant-cli-'));

async function receiver(faults: string[]): Promise<string> {
  const rx = await startReceiver({ merchantId: ID, secret: SECRET, faults });
  closers.push(rx.close);
  return rx.url;
}

describe('mpsi-conformance receiver', () => {
  it('certifies a correct receiver: exit 0, certificate, JUnit and Allure results, no secret written', async () => {
    process.env[ENV] = SECRET;
    const dir = tmp();
    const code = await main([
      'receiver',
      '--url',
      await receiver([]),
      '--merchant',
      ID,
      '--secret-env',
      ENV,
      '--reports',
      dir,
      '--seed',
      '9',
      '--no-html',
    ]);
    expect(code).toBe(0);
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain('Verdict: conformant (exit code 0)');
    expect(md).toMatch(/webhook\.dup\.key` \| must \| skipped: precondition/);
    expect(JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')).exitCode).toBe(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<testsuite name="receiver"');
    expect(readdirSync(join(dir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
    for (const f of ['certificate.md', 'certificate.json', 'junit.xml']) expect(readFileSync(join(dir, f), 'utf8')).not.toContain(SECRET);
  });

  it('fails a receiver that acknowledges with JSON: exit 1, the certificate names the clause', async () => {
    process.env[ENV] = SECRET;
    const dir = tmp();
    expect(
      await main([
        'receiver',
        '--url',
        await receiver(['json-ack']),
        '--merchant',
        ID,
        '--secret-env',
        ENV,
        '--reports',
        dir,
        '--seed',
        '9',
        '--no-html',
      ]),
    ).toBe(1);
    expect(readFileSync(join(dir, 'certificate.md'), 'utf8')).toMatch(/must-level deviations from .*merchant\.ack\.success-body/);
  });

  it('fails a receiver that never answers within the deadline: exit 1, not a hang', async () => {
    process.env[ENV] = SECRET;
    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          silent.closeAllConnections();
          silent.close(() => r());
        }),
    );
    const dir = tmp();
    const t = performance.now();
    const code = await main([
      'receiver',
      '--url',
      `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`,
      '--merchant',
      ID,
      '--secret-env',
      ENV,
      '--reports',
      dir,
      '--check',
      'replies-within-5-seconds',
      '--check',
      'webhook.dup.may-repeat',
      '--no-html',
    ]);
    expect(code).toBe(1);
    expect(performance.now() - t).toBeLessThan(15_000);
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain('merchant.ack.within-5s');
    // The rule as the document states it; the kit's grace said apart, never as the rule.
    expect(md).toContain("5 s (the document's rule) and the kit's 1000 ms grace");
    expect(md).not.toContain('within 6000 ms');
  }, 30_000);

  it('cannot run without the secret, or against an endpoint nobody listens at: exit 2', async () => {
    expect(await main(['receiver', '--url', 'http://127.0.0.1:9/x', '--merchant', ID, '--secret-env', ENV])).toBe(2);
    process.env[ENV] = SECRET;
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));
    expect(await main(['receiver', '--url', `http://127.0.0.1:${port}/x`, '--merchant', ID, '--secret-env', ENV, '--reports', tmp()])).toBe(
      2,
    );
    expect(await main(['receiver', '--url', 'ftp://x', '--merchant', ID, '--secret-env', ENV])).toBe(2);
    expect(await main(['receiver', '--merchant', ID, '--secret-env', ENV, '--bogus'])).toBe(2);
  });

  it('documents itself and refuses bad settings with exit 2', async () => {
    expect(await main(['receiver', '--help'])).toBe(0);
    expect(await main(['help', 'receiver'])).toBe(0);
    process.env[ENV] = SECRET;
    const url = await receiver([]);
    expect(await main(['receiver', '--url', url, '--merchant', ID, '--secret-env', ENV, '--seed', 'abc'])).toBe(2);
    const dir = tmp();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'bad.json'), '{"url": ');
    expect(await main(['receiver', '--config', join(dir, 'bad.json')])).toBe(2);
    writeFileSync(join(dir, 'unknown.json'), JSON.stringify({ url, merchant: ID, secretEnv: ENV, secret: SECRET }));
    expect(await main(['receiver', '--config', join(dir, 'unknown.json')])).toBe(2);
    expect(await main(['receiver', '--config', join(dir, 'missing.json')])).toBe(2);
  });

  it('reads the same settings from a config file', async () => {
    process.env[ENV] = SECRET;
    const dir = tmp();
    const cfg = join(dir, 'receiver.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(cfg, JSON.stringify({ url: await receiver([]), merchant: ID, secretEnv: ENV, seed: 4, reports: join(dir, 'out') }));
    expect(await main(['receiver', '--config', cfg])).toBe(0);
    expect(existsSync(join(dir, 'out', 'certificate.json'))).toBe(true);
    // The one run here that also renders the single-file page.
    const page = join(dir, 'out', 'allure-report', 'index.html');
    expect(readFileSync(page, 'utf8')).not.toContain(SECRET);
    // Its data files travel gzipped inside the page: they are read too.
    expect(secretHits(page, [SECRET])).toEqual([]);
  });
});

describe('mpsi-conformance serve --audit', () => {
  async function auditRun(
    faults: string[],
    dir: string,
    probe = true,
    extra: string[] = [],
    notifyUrl?: string,
    settleMs = 0,
  ): Promise<{ code: number; out: string[]; err: string[]; answer: unknown }> {
    const out: string[] = [];
    const err: string[] = [];
    let stop = (): void => {};
    let answer: unknown;
    const stopped = new Promise<void>((r) => (stop = r));
    const running = auditMain(['--audit', '--reports', dir, '--port', '0', '--no-html', ...extra], {
      out: (l) => {
        out.push(l);
        const url = /listening on (\S+)/.exec(l)?.[1];
        if (url) {
          void (async () => {
            await runClient({
              baseUrl: url,
              merchantId: ID,
              testKey: 'sk_test_primary_5f2c9a7e41d84b06',
              productionKey: 'sk_live_primary_7d3f1a9c5e2b8046',
              faults,
              seed: 3,
              notifyUrl,
            });
            // Webhooks (and --rough's second copies) reach the receiver after the client is done.
            if (settleMs) await new Promise((r) => setTimeout(r, settleMs));
            if (!probe) return stop();
            const res = await fetch(`${url}/api/v1/payments/query`, {
              method: 'POST',
              headers: {
                'Content-Type': 'application/json',
                'X-MerchantID': ID,
                'X-Timestamp': String(Math.floor(Date.now() / 1000)),
                'X-Nonce': 'n'.repeat(20),
                'X-Sign': 'A'.repeat(64),
              },
              body: '{"merchant_order_no":"X"}',
            });
            answer = await res.json();
            stop();
          })();
        }
      },
      err: (l) => err.push(l),
      untilStopped: () => stopped,
    });
    return { code: await running, out, err, answer };
  }

  it('diagnoses an upper-case hex client in the log and the report, the sandbox answering as the interface says', async () => {
    const dir = tmp();
    const { code, err, answer } = await auditRun(['upper-case-hex'], dir);
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/upper-case-hex \[client\.sign\.lower-hex\]/);
    expect(answer).toEqual({ code: 403, msg: 'Invalid signature|forbidden' });
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain('UPPER_CASE_HEX');
    expect(md).not.toContain('sk_test_primary_5f2c9a7e41d84b06');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('client.sign.lower-hex');
  });

  it('names a "1,249.50" amount (PHP number_format) by its clause, though the sandbox only answered invalidRequest: exit 1', async () => {
    const dir = tmp();
    const { code, err, out } = await auditRun(['thousands-separator-amount'], dir, false);
    expect(code).toBe(1);
    expect(err.join('\n')).toContain(
      '-> HTTP 200 invalidRequest — not-a-decimal-amount [client.amount.string]: trans_amount.value "1,249.50" is not a decimal string',
    );
    expect(out.join('\n')).toMatch(/client audit: \d+ requests, [1-9]\d* must-level mistakes?; verdict non-conformant \(exit 1\)/);
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain('NOT_A_DECIMAL_AMOUNT');
    expect(md).toMatch(/client\.amount\.string/);
  });

  it('names the family of a re-serialised body: a Python client signing json.dumps defaults, sending the compact form', async () => {
    const dir = tmp();
    const { code, err } = await auditRun(['python-default-separators'], dir, false);
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/re-serialised-body: Python json\.dumps default separators .* \[client\.sign\.raw-body\]/);
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain('re-serialised-body: Python json.dumps default separators');
    expect(md).not.toContain('UNEXPLAINED_SIGNATURE');
  });

  it('passes a correct client with tampered answers and --rough: exit 0, every client clause passed', async () => {
    const dir = tmp();
    const rx = await startClientReceiver({ merchantId: ID, secret: 'sk_test_primary_5f2c9a7e41d84b06' });
    const extra = ['--tamper-responses', '--tamper-rate', '1', '--seed', '9', '--rough', '--rough-rate=1', '--time-scale', '0.02'];
    const { code, out } = await auditRun([], dir, false, extra, rx.url, 1500).finally(() => rx.close());
    expect(out.join('\n')).toContain(
      'then about 100% of successful answers carrying a service number, those telling a new one first (seed 9',
    );
    expect(code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as { clauses: { id: string; status: string }[] };
    expect(json.clauses.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(json.clauses.length).toBe(new Set(clientFaults.map((f) => f.clause)).size);
  });

  it('a client that uses the number of a tampered answer fails auth.response.verify, naming both requests', async () => {
    const dir = tmp();
    const { code } = await auditRun(['trusted-unverified-response'], dir, false, ['--tamper-responses', '--tamper-rate=1', '--seed=2']);
    expect(code).toBe(1);
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toMatch(/#1, #2 .*trusted-unverified-response: order_no \S+ came only from the answer to request #1/);
  });

  it(`a client that never verifies is caught at --tamper-rate 0.5 \
--seed 11, and the report counts the altered answers acted on`, async () => {
    const dir = tmp();
    const { code, out } = await auditRun(['trusted-unverified-response'], dir, false, [
      '--tamper-responses',
      '--tamper-rate',
      '0.5',
      '--seed',
      '11',
    ]);
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/tampered answers: [1-9]\d* altered, [1-9]\d* of them followed by a request about the same order/);
    expect(readFileSync(join(dir, 'certificate.md'), 'utf8')).toContain('TRUSTED_UNVERIFIED_RESPONSE');
  });

  it(`without --tamper-responses and --rough, what a client does \
with an unverifiable or transient answer is skipped, not passed`, async () => {
    const dir = tmp();
    expect((await auditRun([], dir, false)).code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as { clauses: { id: string; status: string }[] };
    expect(json.clauses.find((c) => c.id === 'auth.response.verify')?.status).toBe('skipped-precondition');
    expect(json.clauses.find((c) => c.id === 'client.query.retry')?.status).toBe('skipped-precondition');
  });

  it('refuses --tamper-rate without --tamper-responses, and a rate outside 0..1', async () => {
    await expect(auditRun([], tmp(), false, ['--tamper-rate', '0.5'])).rejects.toThrow(/needs --tamper-responses/);
    await expect(auditRun([], tmp(), false, ['--tamper-responses', '--tamper-rate', '2'])).rejects.toThrow(/at most 1/);
    await expect(auditRun([], tmp(), false, ['--rough-rate', '0.5'])).rejects.toThrow(/needs --rough/);
  });

  it('--audit-interval writes the report while serving', async () => {
    const dir = tmp();
    let stop = (): void => {};
    let interim = '';
    const stopped = new Promise<void>((r) => (stop = r));
    const code = auditMain(['--audit', '--no-html', '--audit-interval', '1', '--reports', dir], {
      out: (l) => {
        const url = /listening on (\S+)/.exec(l)?.[1];
        if (!url) return;
        void (async () => {
          await runClient({
            baseUrl: url,
            merchantId: ID,
            testKey: 'sk_test_primary_5f2c9a7e41d84b06',
            productionKey: 'sk_live_primary_7d3f1a9c5e2b8046',
            faults: ['production-key'],
            seed: 4,
          });
          for (let i = 0; i < 40 && !existsSync(join(dir, 'certificate.md')); i++) await new Promise((r) => setTimeout(r, 100));
          if (existsSync(join(dir, 'certificate.md'))) interim = readFileSync(join(dir, 'certificate.md'), 'utf8');
          stop();
        })();
      },
      err: () => {},
      untilStopped: () => stopped,
    });
    expect(await code).toBe(1);
    // Written by the interval, before the sandbox was stopped.
    expect(interim).toContain('PRODUCTION_KEY');
  });

  it('with no client request at all, the audit could not judge anything: exit 2', async () => {
    let stop = (): void => {};
    const stopped = new Promise<void>((r) => (stop = r));
    const code = auditMain(['--audit', '--no-html', '--reports', tmp()], {
      out: (l) => (l.includes('listening') ? stop() : undefined),
      err: () => {},
      untilStopped: () => stopped,
    });
    expect(await code).toBe(2);
  });
});
