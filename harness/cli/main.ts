import { UsageError } from './args.js';
import { runMain, RUN_HELP } from './run.js';

const HELP = `mpsi-conformance — conformance kit for the Merchant Payment Service Interface

Usage:
  mpsi-conformance run [options]      run the conformance suites (default target: the embedded reference)
  mpsi-conformance serve [options]    serve the reference sandbox
  mpsi-conformance help [command]

Exit codes: 0 conformant, 1 non-conformant, 2 the run could not be made.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runMain(rest);
      case 'serve': {
        const { serveMain } = await import('../../reference/serve.js');
        return await serveMain(rest);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(rest[0] === 'run' ? RUN_HELP : HELP);
        return 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)} (try: run, serve, help)`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`mpsi-conformance: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

// Run directly (tsx harness/cli/main.ts ...), not when imported by the bin.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/harness\//, '/harness/'))) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
