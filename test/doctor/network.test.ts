import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctorPhase } from '../../harness/cli/doctor.js';
import { createClient } from '../../harness/http/client.js';
import { makeNetwork, resolveTls } from '../../harness/http/network.js';
import { loadProfile, merchantSecrets, ProfileError, redactProfile } from '../../harness/profile/load.js';
import { makeRedactor } from '../../harness/kit/redact.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import type { RunningReference } from '../../reference/index.js';
import { BIN, REFERENCE_PROFILE, ROOT } from '../cli/helpers.js';
import { hasOpenssl, makePki, type Pki } from '../fixtures/network/pki.js';
import { type Running, tlsFront } from '../fixtures/network/servers.js';

/**
 * The doctor over a network: the embedded reference behind HTTPS that asks for a client certificate (a TLS front on
 * port 0, certificates made by `openssl` at the start). With the profile's http.tls it verifies the target as it
 * would over plain HTTP; with a part missing it is WRONG on that part, with the fix; NODE_EXTRA_CA_CERTS still works.
 */
const run = hasOpenssl() ? describe : describe.skip;

let pki: Pki;
let reference: RunningReference;
let mtls: Running;
let https: Running;
const KEY_ENV = 'MPSI_TEST_TLS_CLIENT_KEY';

function profileFile(name: string, edit: (p: Record<string, unknown>) => void): string {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Record<string, unknown>;
  p.$schema = undefined;
  edit(p);
  const file = join(pki.dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(p, null, 2));
  return file;
}

const tlsProfile = (tls: Record<string, string>, port = () => mtls.port) =>
  profileFile(`p-${Object.keys(tls).join('-')}-${port()}`, (p) => {
    p.baseUrl = `https://localhost:${port()}`;
    p.http = { ...(p.http as object), tls };
  });

beforeAll(async () => {
  if (!hasOpenssl()) return;
  pki = makePki();
  const base = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8'));
  reference = await startEmbeddedReference(base);
  const port = Number(new URL(reference.url).port);
  const id = { cert: pki.read(pki.server.cert), key: pki.read(pki.server.key) };
  mtls = await tlsFront({ ...id, clientCa: pki.read(pki.ca) }, port);
  https = await tlsFront(id, port);
}, 30_000);

afterAll(async () => {
  await mtls?.close();
  await https?.close();
  await reference?.close();
});

run('the doctor over TLS', () => {
  const env = () => ({ ...process.env, [KEY_ENV]: pki.read(pki.client.key) });

  it('mutual TLS with a private CA: the envelope, credentials and paths verified; the key in no report', async () => {
    const loaded = loadProfile(tlsProfile({ ca: 'test-ca.pem', cert: 'client.pem', keyEnv: KEY_ENV }), env());
    expect(merchantSecrets(loaded)).toContain(pki.read(pki.client.key));
    const reports = join(pki.dir, 'reports-ok');
    const out = { write: () => true } as unknown as NodeJS.WritableStream;
    const report = await doctorPhase({
      loaded,
      baseUrl: loaded.profile.baseUrl,
      reportsDir: reports,
      verbose: false,
      webhooks: false,
      out,
      err: out,
    });
    const wrong = report.items.filter((i) => i.status === 'wrong');
    expect(wrong, JSON.stringify(wrong)).toEqual([]);
    expect(report.items.find((i) => i.path === 'baseUrl')?.status).toBe('verified');
    expect(report.items.filter((i) => i.status === 'verified').length).toBeGreaterThan(20);
    const keyBody = pki.read(pki.client.key).split('\n')[1]!;
    for (const f of ['doctor.json', 'doctor.md']) expect(readFileSync(join(reports, f), 'utf8')).not.toContain(keyBody);
  });

  it('no client certificate: WRONG on http.tls, with the fix, and nothing else asked', async () => {
    const loaded = loadProfile(tlsProfile({ ca: 'test-ca.pem' }), env());
    const out = { write: () => true } as unknown as NodeJS.WritableStream;
    const report = await doctorPhase({
      loaded,
      baseUrl: loaded.profile.baseUrl,
      reportsDir: join(pki.dir, 'r2'),
      verbose: false,
      webhooks: false,
      out,
      err: out,
    });
    expect(report.exitCode).toBe(2);
    const wrong = report.items.filter((i) => i.status === 'wrong');
    expect(wrong.map((i) => i.path)).toEqual(['http.tls']);
    expect(wrong[0]!.fix).toMatch(/http\.tls\.cert and http\.tls\.key/);
  });

  it('no CA for a private one: WRONG on http.tls.ca, not on baseUrl', async () => {
    const loaded = loadProfile(tlsProfile({ cert: 'client.pem', keyEnv: KEY_ENV }), env());
    const out = { write: () => true } as unknown as NodeJS.WritableStream;
    const report = await doctorPhase({
      loaded,
      baseUrl: loaded.profile.baseUrl,
      reportsDir: join(pki.dir, 'r3'),
      verbose: false,
      webhooks: false,
      out,
      err: out,
    });
    expect(report.items.filter((i) => i.status === 'wrong').map((i) => i.path)).toEqual(['http.tls.ca']);
  });

  it('http.tls under profile version 3 is refused, naming the version to set', () => {
    const file = profileFile('v3', (p) => {
      p.profileVersion = 3;
      p.http = { tls: { ca: 'test-ca.pem' } };
    });
    expect(() => loadProfile(file)).toThrow(ProfileError);
    expect(() => loadProfile(file)).toThrow(/http\.tls: is a profile format version 4 field/);
  });

  it('a field and its variable together are refused with one line naming http.tls', () => {
    const file = profileFile('both', (p) => {
      p.http = { tls: { ca: 'test-ca.pem', caEnv: 'SOME_CA' } };
    });
    expect(() => loadProfile(file)).toThrow(/http\.tls: each file once/);
  });

  it('a passphrase is redacted like a merchant key', () => {
    const file = tlsProfile({ ca: 'test-ca.pem', pfx: 'client.p12', passphraseEnv: 'MPSI_TEST_PFX_PASS' });
    const loaded = loadProfile(file, { ...process.env, MPSI_TEST_PFX_PASS: pki.pfxPassphrase });
    expect(makeRedactor(merchantSecrets(loaded))(`x ${pki.pfxPassphrase} y`)).toBe('x *** y');
    const literal = loadProfile(tlsProfile({ ca: 'test-ca.pem', pfx: 'client.p12', passphrase: pki.pfxPassphrase }));
    expect(JSON.stringify(redactProfile(literal.profile))).not.toContain(pki.pfxPassphrase);
  });
});

run('NODE_EXTRA_CA_CERTS', () => {
  it('without http.tls.ca, the doctor (a process started with the variable) trusts the CA it names', async () => {
    const file = profileFile('extra-ca', (p) => {
      p.baseUrl = `https://localhost:${https.port}`;
    });
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'doctor', '--profile', file, '--reports', join(pki.dir, 'r-extra'), '--quiet'], {
        cwd: ROOT,
        env: { ...process.env, NODE_EXTRA_CA_CERTS: pki.ca },
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
    expect(r.code, r.out).toBe(0);
    const doctor = JSON.parse(readFileSync(join(pki.dir, 'r-extra', 'doctor.json'), 'utf8')) as {
      items: { path: string; status: string }[];
    };
    expect(doctor.items.find((i) => i.path === 'baseUrl')?.status).toBe('verified');
  }, 90_000);

  it('beside http.tls.ca of another CA, the CA the variable names is still trusted', async () => {
    const r = resolveTls({ ca: 'other-ca.pem' }, { NODE_EXTRA_CA_CERTS: pki.ca }, pki.dir);
    const client = createClient({ deadlineMs: 5000, maxResponseBytes: 65536, network: makeNetwork(r.options, {}) });
    const ex = await client.send({
      label: 't',
      url: `https://localhost:${https.port}/api/v1/payments/query`,
      headers: {},
      body: Buffer.from('{}'),
    });
    await client.close();
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBeGreaterThan(0);
  });
});
