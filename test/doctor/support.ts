import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DoctorReport } from '../../harness/doctor/model.js';

export const REFERENCE_PROFILE = fileURLToPath(new URL('../../fixtures/profiles/reference.json', import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: tests mutate free-form JSON
export type Json = Record<string, any>;

/** A copy of the reference profile with one deliberate mistake, written to a temp folder; returns its path. */
export function profileWith(edit: (p: Json) => void, dir = mkdtempSync(join(tmpdir(), 'mpsi-doctor-')), from = REFERENCE_PROFILE): string {
  const p = JSON.parse(readFileSync(from, 'utf8')) as Json;
  delete p['$schema'];
  edit(p);
  const file = join(dir, 'profile.json');
  writeFileSync(file, JSON.stringify(p, null, 2));
  return file;
}

export function readDoctor(dir: string, name = 'doctor'): DoctorReport {
  return JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as DoctorReport;
}
