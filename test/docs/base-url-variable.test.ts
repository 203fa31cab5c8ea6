/**
 * `"baseUrl": "${BASE_URL}"` (one profile for every instance of a sandbox) is said where a vendor writing a profile looks:
 * the profile reference (generated from the schema), the certify guide and the annotated example; and it works as they
 * say: `--target` stands in for it, else the environment variable, and an unset variable is refused by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ProfileError, parseProfile } from '../../harness/profile/load.js';
import { ROOT } from '../cli/helpers.js';

const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');
const VARIABLE = `\${BASE_URL}`;

describe('a base URL from the environment or --target', () => {
  it.each([
    ['the profile reference', ['docs', 'generated', 'profile.md']],
    ['the certify guide', ['docs', 'guides', 'certify-a-sandbox.md']],
    ['the annotated example', ['fixtures', 'profiles', 'example.annotated.jsonc']],
  ])('is documented in %s, with --target', (_what, path) => {
    const text = read(...path);
    const at = text.indexOf(VARIABLE);
    expect(at).toBeGreaterThan(-1);
    // Said together with the flag that stands in for it.
    expect(text.slice(Math.max(0, at - 400), at + 400)).toContain('--target');
  });

  it('works as documented: --target first, else the variable, an unset one refused by name', () => {
    const profile = JSON.parse(read('fixtures', 'profiles', 'reference.json')) as Record<string, unknown>;
    profile['baseUrl'] = VARIABLE;
    const text = JSON.stringify(profile);
    expect(parseProfile(text, 'p.json', { BASE_URL: 'https://sandbox-42.acme.example/' }).profile.baseUrl).toBe(
      'https://sandbox-42.acme.example',
    );
    expect(parseProfile(text, 'p.json', {}, { baseUrl: 'https://sandbox-7.acme.example' }).profile.baseUrl).toBe(
      'https://sandbox-7.acme.example',
    );
    let problems: string[] = [];
    try {
      parseProfile(text, 'p.json', {});
    } catch (err) {
      problems = (err as ProfileError).problems;
    }
    expect(problems).toContain('baseUrl: environment variable BASE_URL is not set: set it, or give the address with --target');
  });
});
