/**
 * The CLI's entry: one command table, from which dispatch, the general help and the unknown-command message are made.
 * Each command declares its flags once, as a `FlagTable` (harness/cli/args.ts) from which both its parser and its help's
 * option list are made; scripts/gen-pages.ts renders docs/generated/cli.md from the same tables.
 */
import { UsageError } from './args.js';
import { firstLine } from '../kit/text.js';

// Each command's module (and its dependencies: ajv, undici, allure...) is imported only when that
// command or its help is asked for, so `--help` starts at once.

const SERVE_HELP = `mpsi-conformance serve [options]

Serves the kit's reference implementation as a local sandbox (reference/serve.ts) until Ctrl-C.
Its merchants and secrets are those of fixtures/profiles/reference.json.

  --port N          port to listen on (default: any free port, printed)
  --host H          address to listen on (default 127.0.0.1)
  --time-scale X    webhook clock ratio (0.001: one interface-second lasts 1 ms; default 1: real time)
  --rate-limit N    a gateway in front: beyond N requests per second, HTTP 429 with an HTML body and
                    Retry-After: 1, unsigned (field conditions: a vendor's API gateway)
  --latency MS      one-way delay on every exchange and every webhook delivery (MS each way)
  --readings SET    take another set of readings where the document allows several answers
                    (default | alt; alt is described by fixtures/profiles/reference-alt.json)
  --target JSON     what the sandbox has instead of its fixtures (merchants, methods, channels, cards:
                    reference/sandbox-data.ts), as a profile's embedded.target gives it
  --fault NAME      switch on a fault of the reference (repeatable)
  --lag-file FILE   append this process's own scheduling stalls to FILE (the kit excuses a timing it caused)
  --list-faults     list the faults and the clause each one breaks
  --list-readings   list the readings of the alt set and the sentences that allow each
  --audit           audit the clients that call it (harness/cli/audit.ts): see serve --audit --help
`;

interface Command {
  usage: string;
  summary: string;
  help: () => Promise<string>;
  main: (rest: string[]) => Promise<number>;
}

/**
 * Each command once: its usage line and summary (the general help), its own help and its program, both imported only
 * when asked for. `main` dispatches from this table and the general help and the unknown-command message list it.
 */
export const COMMANDS: Record<string, Command> = {
  run: {
    usage: 'run [options]',
    summary: 'run the conformance checks (default target: the embedded reference)',
    help: async () => (await import('./run.js')).RUN_HELP,
    main: async (rest) => (await import('./run.js')).runMain(rest),
  },
  doctor: {
    usage: 'doctor [options]',
    summary: "verify the profile's assumptions against the target (also the first phase of run and parity)",
    help: async () => (await import('./doctor.js')).DOCTOR_HELP,
    main: async (rest) => (await import('./doctor.js')).doctorMain(rest),
  },
  report: {
    usage: 'report [options]',
    summary: 'rebuild certificate and HTML report from a reports directory (or merge shards)',
    help: async () => (await import('./report.js')).REPORT_HELP,
    main: async (rest) => (await import('./report.js')).reportMain(rest),
  },
  'verify-certificate': {
    usage: 'verify-certificate FILE',
    summary: "recompute a certificate's digests and verdict from its results",
    help: async () => (await import('./verify.js')).VERIFY_HELP,
    main: async (rest) => (await import('./verify.js')).verifyMain(rest),
  },
  parity: {
    usage: 'parity --a PROFILE --b PROFILE',
    summary: 'compare two targets (sandbox vs production, release vs last) check by check',
    help: async () => (await import('./parity.js')).PARITY_HELP,
    main: async (rest) => (await import('./parity.js')).parityMain(rest),
  },
  serve: {
    usage: 'serve [options]',
    summary: 'serve the reference sandbox (--audit: and audit its clients)',
    help: async () => SERVE_HELP,
    main: async (rest) => {
      if (rest.includes('--audit')) return (await import('./audit.js')).auditMain(rest);
      if (rest.includes('--help') || rest.includes('-h')) {
        process.stdout.write(SERVE_HELP);
        return 0;
      }
      return (await import('../../reference/serve.js')).serveMain(rest);
    },
  },
  receiver: {
    usage: 'receiver --url URL ...',
    summary: "certify a merchant's webhook receiver",
    help: async () => (await import('./receiver.js')).RECEIVER_HELP,
    main: async (rest) => (await import('./receiver.js')).receiverMain(rest),
  },
  describe: {
    usage: 'describe --profile FILE --openapi OUT',
    summary: "the target's interface as its profile says it, as OpenAPI 3.1",
    help: async () => (await import('./describe.js')).DESCRIBE_HELP,
    main: async (rest) => (await import('./describe.js')).describeMain(rest),
  },
  init: {
    usage: 'init --target URL --merchant ID --secret-env VAR',
    summary: 'draft a profile by probing a sandbox',
    help: async () => (await import('./init.js')).INIT_HELP,
    main: async (rest) => (await import('./init.js')).initMain(rest),
  },
  'ci-summary': {
    usage: 'ci-summary [--reports DIR]',
    summary: "a run's verdict for CI: step outputs, job summary, one annotation per failed clause",
    help: async () => (await import('./ci.js')).CI_HELP,
    main: async (rest) => (await import('./ci.js')).ciMain(rest),
  },
};

const HELP_USAGE = 'help [command]';
const HELP_SUMMARY = "this text, or a command's options (also: COMMAND --help)";

export function generalHelp(): string {
  const rows = [...Object.values(COMMANDS).map((c) => [c.usage, c.summary] as const), [HELP_USAGE, HELP_SUMMARY] as const];
  // Usage lines longer than the column keep one space before their summary, as the table always did.
  const column = 47;
  return `mpsi-conformance — conformance kit for the Merchant Payment Service Interface

Usage:
${rows.map(([usage, summary]) => `  mpsi-conformance ${usage.padEnd(column - 'mpsi-conformance '.length - 1)} ${summary}`).join('\n')}

Exit codes: 0 conformant, 1 non-conformant, 2 the run could not be made (bad flags, bad profile,
target unreachable, harness error); the reason is on stderr.
`;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      const topic = rest[0];
      if (topic !== undefined && !Object.hasOwn(COMMANDS, topic))
        throw new UsageError(`no help for ${JSON.stringify(topic)} (commands: ${Object.keys(COMMANDS).join(', ')})`);
      process.stdout.write(topic ? await COMMANDS[topic]!.help() : generalHelp());
      return 0;
    }
    if (!Object.hasOwn(COMMANDS, command))
      throw new UsageError(`unknown command ${JSON.stringify(command)} (try: ${[...Object.keys(COMMANDS), 'help'].join(', ')})`);
    return await COMMANDS[command]!.main(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`mpsi-conformance: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`mpsi-conformance: internal error: ${firstLine(err)}\n`);
    return 2;
  }
}

// Run directly (tsx harness/cli/main.ts ...), not when imported by the bin.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/harness\//, '/harness/'))) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
