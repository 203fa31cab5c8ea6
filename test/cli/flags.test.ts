import { describe, expect, it } from 'vitest';
import { flagsHelp, parseFlags, UsageError, type FlagTable } from '../../harness/cli/args.js';
import { AUDIT_FLAGS, AUDIT_HELP } from '../../harness/cli/audit.js';
import { DESCRIBE_FLAGS, DESCRIBE_HELP } from '../../harness/cli/describe.js';
import { DOCTOR_FLAGS, DOCTOR_HELP } from '../../harness/cli/doctor.js';
import { INIT_FLAGS, INIT_HELP } from '../../harness/cli/init.js';
import { PARITY_FLAGS, PARITY_HELP } from '../../harness/cli/parity.js';
import { RECEIVER_FLAGS, RECEIVER_HELP } from '../../harness/cli/receiver.js';
import { REPORT_FLAGS, REPORT_HELP } from '../../harness/cli/report.js';
import { RUN_FLAGS, RUN_HELP } from '../../harness/cli/run.js';
import { VERIFY_FLAGS, VERIFY_HELP } from '../../harness/cli/verify.js';
import { callMain } from './helpers.js';

const TABLE = {
  profile: { kind: 'value', arg: 'FILE', help: 'the profile' },
  suite: { kind: 'multi', arg: 'NAME', help: 'a suite\n(repeatable)' },
  'no-html': { kind: 'bool', help: 'no page' },
} as const satisfies FlagTable;

describe('a flag table', () => {
  it('gives the parser its flags, typed: a value, a list, a switch; --help for every command', () => {
    const { flags, rest } = parseFlags(['--profile', 'p.json', '--suite', 'a,b', '--suite=c', '--no-html', 'x', '--help'], TABLE);
    expect(flags).toEqual({ profile: 'p.json', suite: ['a', 'b', 'c'], 'no-html': true, help: true });
    expect(rest).toEqual(['x']);
    const list: string[] | undefined = flags.suite;
    expect(list).toHaveLength(3);
  });

  it('keeps each value of a repeatable flag whole when it is declared `repeat` (a JSON list has commas)', () => {
    const table = { hint: { kind: 'repeat', arg: 'P=V', help: 'a fact' } } as const satisfies FlagTable;
    const { flags } = parseFlags(['--hint', 'methods.checkout=["CARD","PAYPAL"]', '--hint=a=b'], table);
    expect(flags.hint).toEqual(['methods.checkout=["CARD","PAYPAL"]', 'a=b']);
  });

  it('refuses a flag it does not declare, and a value flag without its value', () => {
    expect(() => parseFlags(['--profiel', 'p.json'], TABLE)).toThrow(new UsageError('unknown option --profiel'));
    expect(() => parseFlags(['--profile'], TABLE)).toThrow(new UsageError('option --profile needs a value'));
  });

  it('gives the help its option list: every flag with its value, the explanations in one column', () => {
    expect(flagsHelp(TABLE)).toBe(
      [
        '  --profile FILE  the profile',
        '  --suite NAME    a suite',
        '                  (repeatable)',
        '  --no-html       no page',
        '',
      ].join('\n'),
    );
  });
});

/** The flags a help text explains: the option lines, `  --name` at the start of a line. */
function flagsExplained(help: string): string[] {
  return [...help.matchAll(/^ {2}--([a-z][a-z-]*)(?=[ \n])(?!,)/gm)].map((m) => m[1]!);
}

describe('every command explains exactly the flags it accepts', () => {
  const commands: [string, string, FlagTable][] = [
    ['run', RUN_HELP, RUN_FLAGS],
    ['doctor', DOCTOR_HELP, DOCTOR_FLAGS],
    ['report', REPORT_HELP, REPORT_FLAGS],
    ['verify-certificate', VERIFY_HELP, VERIFY_FLAGS],
    ['parity', PARITY_HELP, PARITY_FLAGS],
    ['receiver', RECEIVER_HELP, RECEIVER_FLAGS],
    ['describe', DESCRIBE_HELP, DESCRIBE_FLAGS],
    ['init', INIT_HELP, INIT_FLAGS],
    ['serve --audit', AUDIT_HELP, AUDIT_FLAGS],
  ];
  it.each(commands)('%s', (_name, help, table) => {
    expect(flagsExplained(help)).toEqual(Object.keys(table));
    for (const [name, def] of Object.entries(table)) {
      const argv = def.kind === 'bool' ? [`--${name}`] : [`--${name}`, 'x'];
      expect(() => parseFlags(argv, table), name).not.toThrow();
    }
  });
});

describe('the command table', () => {
  it('lists every command it runs, and each one has its help, by `help NAME` and by `NAME --help`', async () => {
    const general = await callMain(['--help']);
    expect(general.code).toBe(0);
    const names = [...general.stdout.matchAll(/^ {2}mpsi-conformance ([a-z-]+)/gm)].map((m) => m[1]!);
    expect(names).toEqual([
      'run',
      'doctor',
      'report',
      'verify-certificate',
      'parity',
      'serve',
      'receiver',
      'describe',
      'init',
      'ci-summary',
      'help',
    ]);
    for (const name of names.filter((n) => n !== 'help')) {
      const byHelp = await callMain(['help', name]);
      const byFlag = await callMain(name === 'serve' ? ['serve', '--help'] : [name, '--help']);
      expect([byHelp.code, byFlag.code], name).toEqual([0, 0]);
      expect(byHelp.stdout, name).toMatch(new RegExp(`^mpsi-conformance ${name}`));
      expect(byFlag.stdout, name).toBe(byHelp.stdout);
    }
    const unknown = await callMain(['nope']);
    expect(unknown).toMatchObject({ code: 2, stderr: `mpsi-conformance: unknown command "nope" (try: ${names.join(', ')})\n` });
  }, 30_000);
});
