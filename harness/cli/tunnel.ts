/**
 * `--tunnel CMD` for the commands that receive webhooks (run, doctor): the relay and the user's tunnel program around
 * the command's work (harness/webhooks/relay.ts, harness/run/tunnel.ts), stopped when it ends, however it ends.
 */
import { RELAY_ENV, startRelay } from '../webhooks/relay.js';
import { startTunnel, TunnelError } from '../run/tunnel.js';
import { UsageError } from './args.js';

export const TUNNEL_FLAG = {
  kind: 'value',
  arg: 'CMD',
  help: [
    'a tunnel program of yours that gives the webhook receivers a public URL when the target',
    'cannot reach this machine, {url} standing for the local address it must forward to, e.g.',
    '--tunnel "cloudflared tunnel --url {url}"; the first https URL it prints is used (30 s at',
    'most), and it is stopped when the command ends',
  ].join('\n'),
} as const;

export async function withTunnel<T>(command: string | undefined, err: NodeJS.WritableStream, body: () => Promise<T>): Promise<T> {
  if (command === undefined) return body();
  const relay = await startRelay();
  let tunnel: Awaited<ReturnType<typeof startTunnel>> | undefined;
  try {
    try {
      tunnel = await startTunnel(command, relay.url);
    } catch (e) {
      if (e instanceof TunnelError) throw new UsageError(e.message);
      throw e;
    }
    relay.publicBase = tunnel.publicUrl;
    err.write(`tunnel: webhooks reach this machine through ${tunnel.publicUrl} (forwarded to ${relay.url})\n`);
    process.env[RELAY_ENV] = relay.env();
    return await body();
  } finally {
    delete process.env[RELAY_ENV];
    await tunnel?.stop();
    await relay.close();
  }
}
