import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../harness/http/client.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { makeNetwork, type Network, proxyFor, resolveTls, type TlsProfile } from '../../harness/http/network.js';
import { ensureReachable } from '../../harness/cli/run.js';
import { UsageError } from '../../harness/cli/args.js';
import { measureRoundTrip } from '../../harness/run/round-trip.js';
import { hasOpenssl, makePki, type Pki } from '../fixtures/network/pki.js';
import { connectProxy, httpsServer, type TestProxy, type Running } from '../fixtures/network/servers.js';

/**
 * The network between the kit and a target (harness/http/network.ts): TLS with a private CA, mutual TLS, the name verified,
 * proxies from the environment; and each way a connection fails named with the field to fix. Against local servers on
 * port 0 with certificates made by `openssl` when the test starts.
 */
const run = hasOpenssl() ? describe : describe.skip;

let pki: Pki;
let plain: Running;
let mtls: Running & { requests: number };
let expired: Running;
let namesOnly: Running;

function tlsOptions(t: TlsProfile): NonNullable<Network['tls']> {
  const r = resolveTls(t, {}, pki.dir);
  expect(r.problems).toEqual([]);
  return r.options!;
}

async function send(url: string, network: Network, raw = false): Promise<Exchange> {
  const client = createClient({ deadlineMs: 5000, maxResponseBytes: 65536, network });
  try {
    const body = Buffer.from('{}');
    // A declared Content-Length other than the body's goes over the raw socket (harness/http/client-raw.ts).
    return await client.send({
      label: 't',
      url,
      headers: { 'content-type': 'application/json' },
      body,
      ...(raw ? { declaredContentLength: 2 } : {}),
    });
  } finally {
    await client.close();
  }
}

/** The raw path: a caller's own Connection header also goes over the raw socket. */
async function sendRaw(url: string, network: Network): Promise<Exchange> {
  const client = createClient({ deadlineMs: 5000, maxResponseBytes: 65536, network });
  try {
    return await client.send({
      label: 't',
      url,
      headers: { 'content-type': 'application/json', Connection: 'close' },
      body: Buffer.from('{}'),
    });
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  if (!hasOpenssl()) return;
  pki = makePki();
  plain = await httpsServer({ cert: pki.read(pki.server.cert), key: pki.read(pki.server.key) });
  mtls = await httpsServer({ cert: pki.read(pki.server.cert), key: pki.read(pki.server.key), clientCa: pki.read(pki.ca) });
  expired = await httpsServer({ cert: pki.read(pki.expired.cert), key: pki.read(pki.expired.key) });
  namesOnly = await httpsServer({ cert: pki.read(pki.namesOnly.cert), key: pki.read(pki.namesOnly.key) });
}, 30_000);

afterAll(async () => {
  for (const s of [plain, mtls, expired, namesOnly]) await s?.close();
});

run('TLS to the target (http.tls)', () => {
  const noProxy = { proxy: {} };
  const mutual = () => ({ ...noProxy, tls: tlsOptions({ ca: 'test-ca.pem', cert: 'client.pem', key: 'client.key' }) });

  it('a private CA, a client certificate and its key: the mutual-TLS target answers, on both send paths', async () => {
    for (const path of [send, sendRaw]) {
      const ex = await path(`https://localhost:${mtls.port}/api/v1/payments/query`, mutual());
      expect(ex.error, path.name).toBeUndefined();
      expect(ex.response?.status).toBe(200);
    }
    expect(mtls.requests).toBeGreaterThanOrEqual(2);
  });

  it('the same identity as PKCS#12 with its passphrase from the environment', async () => {
    const r = resolveTls({ ca: 'test-ca.pem', pfx: 'client.p12', passphraseEnv: 'PFX_PASS' }, { PFX_PASS: pki.pfxPassphrase }, pki.dir);
    expect(r.problems).toEqual([]);
    expect(r.secrets).toContain(pki.pfxPassphrase);
    const ex = await send(`https://localhost:${mtls.port}/`, { proxy: {}, tls: r.options! });
    expect(ex.response?.status).toBe(200);
  });

  it('without the CA: unknown CA, naming http.tls.ca', async () => {
    const ex = await send(`https://localhost:${plain.port}/`, noProxy);
    expect(ex.error?.kind).toBe('unreachable');
    expect(ex.error?.network).toMatchObject({ kind: 'unknown-ca', field: 'http.tls.ca' });
    expect(ex.error?.network?.fix).toMatch(/http\.tls\.ca/);
    const raw = await sendRaw(`https://localhost:${plain.port}/`, noProxy);
    expect(raw.error?.network?.kind).toBe('unknown-ca');
  });

  it('an expired certificate is named as such, whatever CA is given', async () => {
    const ex = await send(`https://localhost:${expired.port}/`, { ...noProxy, tls: tlsOptions({ ca: 'test-ca.pem' }) });
    expect(ex.error?.network).toMatchObject({ kind: 'certificate-expired', field: 'baseUrl' });
  });

  it('a certificate for other names: name mismatch naming http.tls.servername; servername makes it verify', async () => {
    const url = `https://127.0.0.1:${namesOnly.port}/`;
    const ex = await send(url, { ...noProxy, tls: tlsOptions({ ca: 'test-ca.pem' }) });
    expect(ex.error?.network).toMatchObject({ kind: 'name-mismatch', field: 'http.tls.servername' });
    const raw = await sendRaw(url, { ...noProxy, tls: tlsOptions({ ca: 'test-ca.pem' }) });
    expect(raw.error?.network?.kind).toBe('name-mismatch');
    const named = { ...noProxy, tls: tlsOptions({ ca: 'test-ca.pem', servername: 'target.test' }) };
    expect((await send(url, named)).response?.status).toBe(200);
    expect((await sendRaw(url, named)).response?.status).toBe(200);
  });

  it('no client certificate where the target asks for one: refused, naming http.tls', async () => {
    const ex = await send(`https://localhost:${mtls.port}/`, { ...noProxy, tls: tlsOptions({ ca: 'test-ca.pem' }) });
    expect(ex.error?.network, JSON.stringify(ex.error)).toMatchObject({ kind: 'client-certificate-refused', field: 'http.tls' });
  });

  it('a client certificate the target does not trust: refused, naming http.tls.cert', async () => {
    const ex = await send(`https://localhost:${mtls.port}/`, {
      ...noProxy,
      tls: tlsOptions({ ca: 'test-ca.pem', cert: 'rogue.pem', key: 'rogue.key' }),
    });
    expect(ex.error?.network, JSON.stringify(ex.error)).toMatchObject({ kind: 'client-certificate-refused', field: 'http.tls.cert' });
  });

  it('the round-trip HEADs go over the same TLS (and measure nothing without it)', async () => {
    expect(await measureRoundTrip(`https://localhost:${mtls.port}`, mutual())).toBeGreaterThanOrEqual(0);
    expect(await measureRoundTrip(`https://localhost:${mtls.port}`, makeNetwork(undefined, {}))).toBeUndefined();
  });
});

run('proxies (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)', () => {
  let proxy: TestProxy;
  let refusing: TestProxy;
  beforeAll(async () => {
    proxy = await connectProxy();
    refusing = await connectProxy(403);
  });
  afterAll(async () => {
    await proxy?.close();
    await refusing?.close();
  });
  const via = (p: TestProxy, extra: NodeJS.ProcessEnv = {}) =>
    makeNetwork(resolveTls({ ca: 'test-ca.pem', cert: 'client.pem', key: 'client.key' }, {}, pki.dir).options, {
      HTTPS_PROXY: `http://user:proxy-password@127.0.0.1:${p.port}`,
      ...extra,
    });

  it('a name only the proxy resolves: the request goes through its CONNECT tunnel, mutual TLS inside, on both send paths', async () => {
    const before = proxy.connects.length;
    for (const path of [send, sendRaw]) {
      const ex = await path(`https://target.test:${mtls.port}/api/v1/payments/query`, via(proxy));
      expect(ex.error, path.name).toBeUndefined();
      expect(ex.response?.status).toBe(200);
    }
    expect(proxy.connects.slice(before)).toEqual([`target.test:${mtls.port}`, `target.test:${mtls.port}`]);
    // The proxy's credentials from the URL, as Basic.
    expect(proxy.auths.at(-1)).toBe(`Basic ${Buffer.from('user:proxy-password').toString('base64')}`);
  });

  it('NO_PROXY and loopback hosts go direct', () => {
    const net = via(proxy, { NO_PROXY: 'example.org,.corp.test:8443' });
    expect(proxyFor(new URL('https://target.test/'), net.proxy)?.port).toBe(String(proxy.port));
    expect(proxyFor(new URL('https://api.example.org/'), net.proxy)).toBeUndefined();
    expect(proxyFor(new URL('https://a.corp.test:8443/'), net.proxy)).toBeUndefined();
    expect(proxyFor(new URL('https://a.corp.test/'), net.proxy)).toBeDefined();
    expect(proxyFor(new URL('http://127.0.0.1:9/'), net.proxy)).toBeUndefined();
    expect(proxyFor(new URL('https://localhost/'), net.proxy)).toBeUndefined();
    expect(proxyFor(new URL('https://x.test/'), via(proxy, { NO_PROXY: '*' }).proxy)).toBeUndefined();
    expect(proxyFor(new URL('http://x.test/'), makeNetwork(undefined, { http_proxy: 'http://p:3128' }).proxy)?.host).toBe('p:3128');
  });

  it('a loopback target with a proxy set is reached directly: the proxy sees nothing', async () => {
    const before = proxy.connects.length;
    const ex = await send(`https://localhost:${mtls.port}/`, via(proxy));
    expect(ex.response?.status).toBe(200);
    expect(proxy.connects.length).toBe(before);
  });

  it('a proxy refusing CONNECT is named, naming HTTPS_PROXY, on both send paths, its password never shown', async () => {
    for (const path of [send, sendRaw]) {
      const ex = await path(`https://target.test:${mtls.port}/`, via(refusing));
      expect(ex.error?.network, `${path.name} ${JSON.stringify(ex.error)}`).toMatchObject({ kind: 'proxy-refused', field: 'HTTPS_PROXY' });
      expect(ex.error?.network?.what).toContain('HTTP 403');
      expect(JSON.stringify(ex.error)).not.toContain('proxy-password');
    }
  });

  it("run's reachability check says what the network refused and the fix", async () => {
    const err = await ensureReachable(`https://target.test:${mtls.port}`, via(refusing)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/refused to open a tunnel.*HTTP 403.*fix:/);
    await expect(ensureReachable(`https://target.test:${mtls.port}`, via(proxy))).resolves.toBeUndefined();
  });
});

run('http.tls in a profile', () => {
  it('files relative to the profile, or PEM text in a variable; key material is a secret, never in a message', () => {
    const keyPem = pki.read(pki.client.key);
    const r = resolveTls({ ca: 'test-ca.pem', certEnv: 'C', keyEnv: 'K' }, { C: pki.client.cert, K: keyPem }, pki.dir);
    expect(r.problems).toEqual([]);
    expect(r.options?.clientCert).toBe(true);
    expect(r.secrets).toContain(keyPem);
  });

  it('each problem names its field: a missing file, an unset variable, a key of another certificate', () => {
    expect(resolveTls({ ca: 'nope.pem' }, {}, pki.dir).problems).toEqual([
      `http.tls.ca: cannot read ${join(pki.dir, 'nope.pem')}: no such file`,
    ]);
    expect(resolveTls({ keyEnv: 'UNSET_KEY', cert: 'client.pem' }, {}, pki.dir).problems).toEqual([
      'http.tls.keyEnv: environment variable UNSET_KEY is not set',
    ]);
    const mismatch = resolveTls({ cert: 'client.pem', key: 'rogue.key' }, {}, pki.dir);
    expect(mismatch.problems[0]).toMatch(/^http\.tls: the certificate, key and passphrase do not make a TLS identity/);
    expect(mismatch.problems[0]).not.toContain('BEGIN');
    writeFileSync(join(pki.dir, 'not-pem.txt'), 'hello');
    expect(resolveTls({ ca: 'not-pem.txt' }, {}, pki.dir).problems[0]).toMatch(/is not a PEM file/);
  });
});
