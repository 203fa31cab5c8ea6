import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tunnelUrlIn } from '../../harness/run/tunnel.js';
import { hasOpenssl, makePki, type Pki } from '../fixtures/network/pki.js';
import { writeFileSync } from 'node:fs';
import { BIN, REFERENCE_PROFILE, ROOT, runCli, tempReports } from './helpers.js';

/**
 * `--tunnel CMD` (harness/run/tunnel.ts, harness/webhooks/relay.ts): a stand-in tunnel program
 * (test/fixtures/network/tunnel-standin.mjs: HTTPS on 127.0.0.1, forwarding to the {url} it is given) carries the
 * embedded reference's webhooks to the receivers of the doctor (in the CLI's process) and of a run's suite files (in
 * vitest's workers), each by a public URL of its own; the program is stopped when the command ends. The reference
 * (in the CLI's process) trusts the stand-in's certificate through NODE_EXTRA_CA_CERTS.
 */
const run = hasOpenssl() ? describe : describe.skip;
const STANDIN = join(ROOT, 'test', 'fixtures', 'network', 'tunnel-standin.mjs');

let pki: Pki;
/** The reference's profile with room for the tunnel's own delay on every delivery (as the guide says to give). */
let profile: string;
beforeAll(() => {
  if (!hasOpenssl()) return;
  pki = makePki();
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as { webhooks: { deliveryWaitMs: number } };
  p.webhooks.deliveryWaitMs = 15_000;
  profile = join(pki.dir, 'reference-through-a-tunnel.json');
  writeFileSync(profile, JSON.stringify(p));
});

function tunnelCommand(pidFile: string, mode = ''): string {
  return `node ${STANDIN} {url} ${pki.server.cert} ${pki.server.key} ${pidFile} ${mode}`.trim();
}

/** The stand-in ended (a zombie left to a container's init that does not reap counts as ended). */
function gone(pidFile: string): boolean {
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

describe('the public URL a tunnel program prints', () => {
  it('is the first https origin, past a link to documentation (a URL with a path)', () => {
    const out = 'INF help at https://developers.example.com/docs/x\nINF |  https://quiet-words.trycloudflare.com  |\n';
    expect(tunnelUrlIn(out)).toBe('https://quiet-words.trycloudflare.com');
    expect(tunnelUrlIn('your url is: https://abc.loca.lt.\n')).toBe('https://abc.loca.lt');
    expect(tunnelUrlIn('see https://example.com/docs')).toBeUndefined();
    expect(tunnelUrlIn('http://127.0.0.1:4040 only')).toBeUndefined();
  });
});

run('--tunnel', () => {
  const env = () => ({ NODE_EXTRA_CA_CERTS: pki.ca });

  it('the doctor proves delivery through the tunnel, then the tunnel program is stopped', async () => {
    const reports = tempReports('tunnel-doctor');
    const pid = join(reports, 'tunnel.pid');
    const r = await runCli(['doctor', '--profile', profile, '--reports', reports, '--tunnel', tunnelCommand(pid)], {
      env: env(),
      timeoutMs: 150_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /tunnel: webhooks reach this machine through https:\/\/localhost:\d+ \(forwarded to http:\/\/127\.0\.0\.1:\d+\)/,
    );
    const doctor = JSON.parse(readFileSync(join(reports, 'doctor.json'), 'utf8')) as {
      items: { path: string; status: string; assumption: string }[];
    };
    const delivery = doctor.items.find((i) => i.path === 'webhooks.receiver');
    expect(delivery?.status).toBe('verified');
    expect(delivery?.assumption).toMatch(/at https:\/\/localhost:\d+\/r\/[0-9a-f]{16}\/mpsi\/webhooks/);
    expect(gone(pid)).toBe(true);
  }, 160_000);

  it("a run's webhook checks (receivers in vitest's workers) get their deliveries through the tunnel", async () => {
    const reports = tempReports('tunnel-run');
    const pid = join(reports, 'tunnel.pid');
    const r = await runCli(
      ['run', '--profile', profile, '--suite', 'webhook-delivery', '--no-html', '--reports', reports, '--tunnel', tunnelCommand(pid)],
      { env: env(), timeoutMs: 200_000 },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const cert = JSON.parse(readFileSync(join(reports, 'certificate.json'), 'utf8')) as {
      summary: { checks: { passed: number; skipped: number; failed: number } };
    };
    expect(cert.summary.checks.passed).toBeGreaterThan(0);
    expect(cert.summary.checks.failed).toBe(0);
    expect(gone(pid)).toBe(true);
  }, 210_000);

  it('init learns webhooks through the tunnel, and the commands it prints start their own', async () => {
    const dir = tempReports('tunnel-init');
    const pid = join(dir, 'tunnel.pid');
    // The reference as a remote sandbox would be: its own process, posting webhooks to the tunnel's https URL.
    const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: { ...process.env, ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        serve.stdout.on('data', (c: Buffer) => {
          out += c.toString('utf8');
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        serve.once('exit', (code) => reject(new Error(`serve ended (${code}): ${out}`)));
      });
      const out = join(dir, 'draft.json');
      const tunnel = tunnelCommand(pid);
      const r = await runCli(
        ['init', '--target', url, '--merchant', 'M100001', '--secret-env', 'TUNNEL_INIT_KEY', '--out', out, '--tunnel', tunnel],
        { env: { ...env(), TUNNEL_INIT_KEY: 'sk_test_primary_5f2c9a7e41d84b06' }, timeoutMs: 200_000 },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toMatch(/tunnel: webhooks reach this machine through https:\/\/localhost:\d+/);
      expect(r.stdout).toMatch(/webhooks: the receiver's public URL is https:\/\/localhost:\d+\/r\/[0-9a-f]+\//);
      const draft = JSON.parse(readFileSync(out, 'utf8')) as { webhooks?: { timeScale: number; receiver?: { publicUrl?: string } } };
      // Learnt through the tunnel; the tunnel's passing URL is not written as the receiver's.
      expect(draft.webhooks?.timeScale).toBeGreaterThan(0);
      expect(draft.webhooks?.receiver?.publicUrl).toBeUndefined();
      expect(r.stdout).toContain(`doctor --profile ${out} --tunnel '${tunnel}'`);
      expect(gone(pid)).toBe(true);
    } finally {
      serve.kill('SIGTERM');
    }
  }, 210_000);

  it('a tunnel program that ends without a URL: exit 2, what it printed, and no check ran', async () => {
    const reports = tempReports('tunnel-dies');
    const pid = join(reports, 'tunnel.pid');
    const r = await runCli(['run', '--suite', 'mutual-exclusion', '--reports', reports, '--tunnel', tunnelCommand(pid, '--die')], {
      env: env(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ended \(exit code 3\) without printing an https URL; it printed:/);
    expect(r.stderr).toContain('ERR the tunnel service refused this client');
    expect(existsSync(join(reports, 'certificate.json'))).toBe(false);
  });

  it('a command without {url} is refused before anything starts', async () => {
    const r = await runCli(['doctor', '--tunnel', 'cloudflared tunnel'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/must contain \{url\}/);
  });
});
