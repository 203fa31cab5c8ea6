import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyTally } from '../../harness/check/context.js';
import type { CheckResult } from '../../harness/check/run.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { loadProfile } from '../../harness/profile/load.js';
import { makeRedactor } from '../../harness/kit/redact.js';
import { buildRepros } from '../../harness/report/repro.js';
import { hmacSha256, stringToSign } from '../../harness/http/signing.js';
import { REFERENCE_PROFILE, tempReports } from '../cli/helpers.js';

/**
 * A reproduction renews the numbers it sends: the merchant's are fresh, the service's are read from the
 * fresh answers of the steps before (so a recorded order_no a fresh target cannot know is never sent).
 * The target here knows only the numbers it handed out in this connection's life.
 */
const loaded = loadProfile(REFERENCE_PROFILE);
const primary = loaded.merchants.primary as { id: string; secret: string };
const BASE = 'http://127.0.0.1:9';
let server: Server;
let url: string;
const issued = new Set<string>();
const seenMerchantNos: string[] = [];

function signedRequest(id: string, path: string, body: unknown, response: unknown): Exchange {
  const raw = Buffer.from(JSON.stringify(body));
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = `n${id.replace(/\W/g, '')}abcdefghijklmnop`;
  const sign = hmacSha256(primary.secret, stringToSign(primary.id, ts, nonce, raw)).toString('hex');
  const resBody = Buffer.from(JSON.stringify(response));
  return {
    id,
    label: id,
    request: {
      method: 'POST',
      url: BASE + path,
      headers: { 'Content-Type': 'application/json', 'X-MerchantID': primary.id, 'X-Timestamp': ts, 'X-Nonce': nonce, 'X-Sign': sign },
      body: raw,
    },
    response: { status: 200, headers: {}, body: resBody, truncated: false, json: response },
    timings: { startedAt: new Date().toISOString(), totalMs: 1 },
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      const body = JSON.parse(data) as Record<string, string>;
      let answer: unknown;
      if (req.url === '/create') {
        const orderNo = `P${Math.random().toString().slice(2, 12)}`;
        issued.add(orderNo);
        seenMerchantNos.push(body.merchant_order_no!);
        answer = { code: 0, msg: 'success', data: { order_no: orderNo, merchant_order_no: body.merchant_order_no } };
      } else {
        // Known order: the "wrong" answer the check recorded; unknown: orderNotFound.
        answer = issued.has(body.order_no!) ? { code: 422, msg: 'Wrong|wrongKey' } : { code: 2002, msg: 'Order not found|orderNotFound' };
      }
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a reproduction script', () => {
  const created = signedRequest(
    'x-000001',
    '/create',
    { merchant_order_no: 'KTESTRUN00AAO000001' },
    { code: 0, msg: 'success', data: { order_no: 'P0000000001', merchant_order_no: 'KTESTRUN00AAO000001' } },
  );
  const failing = signedRequest('x-000002', '/query', { order_no: 'P0000000001' }, { code: 422, msg: 'Wrong|wrongKey' });
  const result: CheckResult = {
    checkId: 's/c',
    title: 'c',
    clauses: ['query.returns-record'],
    level: 'must',
    status: 'failed',
    readings: {},
    notes: [],
    exercised: [],
    seed: 1,
    durationMs: 1,
    findings: [{ code: 'X', clause: 'query.returns-record', level: 'must', title: 'x', message: 'x', exchangeId: 'x-000002' }],
    exchanges: [created, failing],
    sent: emptyTally(),
  };
  let file: string;

  beforeAll(() => {
    const [repro] = buildRepros(result, BASE, loaded, makeRedactor([primary.secret]), { kitVersion: '0', profile: 'reference' });
    expect(repro!.name.endsWith('.mjs')).toBe(true);
    expect(repro!.secretEnvs).toEqual(['MPSI_SECRET_PRIMARY']);
    expect(repro!.text).not.toContain(primary.secret);
    file = join(tempReports('repro-unit'), repro!.name);
    writeFileSync(file, repro!.text);
  });

  function node(args: string[]): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [file, ...args], {
        cwd: tempReports('elsewhere'),
        env: { PATH: process.env.PATH ?? '', MPSI_SECRET_PRIMARY: primary.secret },
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.on('exit', (code) => resolve({ code, out }));
    });
  }

  it(`sends fresh merchant numbers and the order_no the fresh answer \
gave, so it reproduces on a target that never saw the recorded ones`, async () => {
    const first = await node(['--base-url', url]);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('REPRODUCED');
    expect(first.out).not.toContain('P0000000001');
    const second = await node(['--base-url', url]);
    expect(second.code, second.out).toBe(0);
    expect(seenMerchantNos).toHaveLength(2);
    expect(seenMerchantNos[0]).not.toBe('KTESTRUN00AAO000001');
    expect(seenMerchantNos[0]).not.toBe(seenMerchantNos[1]);
    // Same length, same kind of character at each place.
    expect(seenMerchantNos[0]).toMatch(/^KTESTRUN00A[A-Z]{2}\d{6}$/);
  });

  it('with --recorded-numbers sends what was recorded, which this target does not know', async () => {
    const r = await node(['--base-url', url, '--recorded-numbers']);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('orderNotFound');
    expect(r.out).toContain('NOT REPRODUCED');
  });
});
