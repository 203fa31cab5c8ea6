/**
 * The compiled kit (an installed package, or a clone running its fresh dist/) runs `dist/suites/<concern>.test.js`;
 * its reports name each suite file as its source, `suites/<concern>.test.ts`, as a run from the sources does, so that
 * a report reads and compares the same whichever ran (the Allure results: allure-writer.ts sourceNamed).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** vitest's JUnit names a suite file by its path from the run's root, in a testsuite's name and a testcase's classname. */
const COMPILED_SUITE_ATTRIBUTE = /(<testsuite name|<testcase classname)="suites\/([^"/]+)\.test\.js"/g;

export function sourceNamedJunit(xml: string): string {
  return xml.replace(COMPILED_SUITE_ATTRIBUTE, '$1="suites/$2.test.ts"');
}

/** Rewrites junit.xml in place when it names compiled suite files. */
export function sourceNameJunitFile(file: string): void {
  if (!existsSync(file)) return;
  const xml = readFileSync(file, 'utf8');
  const renamed = sourceNamedJunit(xml);
  if (renamed !== xml) writeFileSync(file, renamed);
}
