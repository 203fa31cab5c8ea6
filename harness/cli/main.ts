import { UsageError } from './args.js';
import { firstLine } from '../text.js';

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
  --fault NAME      switch on a fault of the reference (repeatable)
  --list-faults     list the faults and the clause each one breaks
  --list-readings   list the readings of the alt set and the sentences that allow each
  --audit           audit the clients that call it (harness/cli/audit.ts): see serve --audit --help
`;

const HELP = `mpsi-conformance — conformance kit for the Merchant Payment Service Interface

Usage:
  mpsi-conformance run [options]                 run the conformance checks (default target: the embedded reference)
  mpsi-conformance doctor [options]              verify the profile's assumptions against the target (also the first phase of run and parity)
  mpsi-conformance report [options]              rebuild certificate and HTML report from a reports directory (or merge shards)
  mpsi-conformance verify-certificate FILE       recompute a certificate's digests and verdict from its results
  mpsi-conformance parity --a PROFILE --b PROFILE compare two targets (sandbox vs production, release vs last) check by check
  mpsi-conformance serve [options]               serve the reference sandbox (--audit: and audit its clients)
  mpsi-conformance receiver --url URL ...        certify a merchant's webhook receiver
  mpsi-conformance init --target URL --merchant ID --secret-env VAR   draft a profile by probing a sandbox
  mpsi-conformance help [command]                this text, or a command's options (also: COMMAND --help)

Exit codes: 0 conformant, 1 non-conformant, 2 the run could not be made (bad flags, bad profile,
target unreachable, harness error); the reason is on stderr.
`;

const HELPS: Record<string, () => Promise<string>> = {
  run: async () => (await import('./run.js')).RUN_HELP,
  doctor: async () => (await import('./doctor.js')).DOCTOR_HELP,
  report: async () => (await import('./report.js')).REPORT_HELP,
  'verify-certificate': async () => (await import('./verify.js')).VERIFY_HELP,
  parity: async () => (await import('./parity.js')).PARITY_HELP,
  serve: async () => SERVE_HELP,
  receiver: async () => (await import('./receiver.js')).RECEIVER_HELP,
  init: async () => (await import('./init.js')).INIT_HELP,
};

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await (await import('./run.js')).runMain(rest);
      case 'doctor':
        return await (await import('./doctor.js')).doctorMain(rest);
      case 'report':
        return await (await import('./report.js')).reportMain(rest);
      case 'verify-certificate':
        return await (await import('./verify.js')).verifyMain(rest);
      case 'parity':
        return await (await import('./parity.js')).parityMain(rest);
      case 'receiver':
        return await (await import('./receiver.js')).receiverMain(rest);
      case 'init':
        return await (await import('./init.js')).initMain(rest);
      case 'serve': {
        if (rest.includes('--audit')) return await (await import('./audit.js')).auditMain(rest);
        if (rest.includes('--help') || rest.includes('-h')) {
          process.stdout.write(SERVE_HELP);
          return 0;
        }
        const { serveMain } = await import('../../reference/serve.js');
        return await serveMain(rest);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h': {
        const topic = rest[0];
        if (topic !== undefined && !HELPS[topic])
          throw new UsageError(`no help for ${JSON.stringify(topic)} (commands: ${Object.keys(HELPS).join(', ')})`);
        process.stdout.write(topic ? await HELPS[topic]!() : HELP);
        return 0;
      }
      default:
        throw new UsageError(
          `unknown command ${JSON.stringify(command)} (try: run, doctor, report, verify-certificate, parity, serve, receiver, init, help)`,
        );
    }
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
