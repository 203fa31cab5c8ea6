/**
 * The doctor never turns a target's violation into the user's profile error. Each fault
 * below makes the target answer against the (true) reference profile where INTERFACE.md fixes the
 * answer; before, each stopped `run` with exit 2 and advice to copy the broken behaviour into the
 * profile. Now the doctor records a doubt (exit 0), the checks run, the fault is killed by its own
 * clause (exit 1), and the certificate shows the doubt beside that clause.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Certificate } from '../../harness/report/certificate.js';
import { callMain } from '../cli/helpers.js';
import { profileWith, readDoctor, REFERENCE_PROFILE } from './support.js';

interface Case {
  what: string;
  fault: string;
  /** The clause the fault breaks, which must fail. */
  clause: string;
  /** The profile path the doctor doubts. */
  field: string;
}

const CASES: Case[] = [
  {
    what: 'an unknown merchant answered 403 instead of 401 merchantNotFound',
    fault: 'auth-unknown-merchant-forbidden',
    clause: 'auth.unknown-merchant',
    field: 'merchants.unknownId',
  },
  { what: '`code` sent as a string', fault: 'env-code-string', clause: 'env.code.integer', field: 'baseUrl' },
  {
    what: 'CASH_APP accepted for payouts',
    fault: 'payout-cash-app-accepted',
    clause: 'err.po.unsupported-payout-method',
    field: 'payouts.notForPayouts',
  },
  {
    what: 'a payout above the balance accepted',
    fault: 'payout-insufficient-funds-ignored',
    clause: 'err.po.insufficient-funds',
    field: 'merchants.lowBalance.payoutBalance',
  },
  {
    what: 'a partial refund accepted on a full-refund-only method',
    fault: 'refund-full-only-partial-accepted',
    clause: 'err.ref.full-only',
    field: 'refunds.support.CASH_APP',
  },
];

describe('doctor: a target violating what the document fixes is a doubt, and its clause fails', () => {
  for (const c of CASES) {
    it(`${c.what} (${c.fault}): exit 1, killed by ${c.clause}, the doubt on ${c.field} beside it`, async () => {
      const reports = join(mkdtempSync(join(tmpdir(), 'mpsi-doubt-')), 'reports');
      const r = await callMain([
        'run',
        '--profile',
        REFERENCE_PROFILE,
        '--fault',
        c.fault,
        '--clause',
        c.clause,
        '--webhooks',
        'off',
        '--no-html',
        '--reports',
        reports,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).not.toContain('the profile is wrong about this target');
      const doctor = readDoctor(reports);
      expect(doctor.exitCode).toBe(0);
      expect(doctor.items.filter((i) => i.status === 'wrong')).toEqual([]);
      const item = doctor.items.find((i) => i.status === 'doubt' && i.path === c.field);
      expect(
        item,
        JSON.stringify(
          doctor.items.filter((i) => i.status !== 'verified'),
          null,
          1,
        ),
      ).toBeDefined();
      expect(item!.clauses).toContain(c.clause);
      expect(item!.fix).toMatch(/^if the profile is right, this is the target's failure/);
      const cert = JSON.parse(readFileSync(join(reports, 'certificate.json'), 'utf8')) as Certificate;
      expect(cert.clauses.find((x) => x.id === c.clause)?.status).toBe('failed');
      const md = readFileSync(join(reports, 'certificate.md'), 'utf8');
      const row = md.split('\n').find((l) => l.startsWith(`| \`${c.clause}\` |`) && l.includes(c.field));
      expect(row, md).toBeDefined();
      expect(md).toContain('## Doubts of the profile doctor');
    }, 60_000);
  }

  it(`a partial refund refused as not supported on a method the profile says \
takes partial refunds: a doubt (refund.channel-support), the run goes on`, async () => {
    // Formerly a "wrong profile" case (exit 2): the refusal is one the document names, and a target may give
    // it wrongly on a channel that does take partial refunds, so the doctor cannot call the profile wrong.
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-doubt-'));
    const reports = join(dir, 'reports');
    const profile = profileWith((p) => (p.refunds.support.CASH_APP = 'partial'), dir);
    const r = await callMain([
      'run',
      '--profile',
      profile,
      '--suite',
      'mutual-exclusion',
      '--webhooks',
      'off',
      '--no-html',
      '--reports',
      reports,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doctor = readDoctor(reports);
    const item = doctor.items.find((i) => i.path === 'refunds.support.CASH_APP');
    expect(item?.status).toBe('doubt');
    expect(item?.clauses).toEqual(['refund.channel-support']);
    expect(item?.answered).toMatch(/code 422 notSupported/);
  }, 60_000);
});
