/**
 * `--tunnel CMD`: a tunnel program the user has (cloudflared, ngrok, localtunnel, an ssh -R) gives the target a public
 * address for the run's webhook receivers, when the target cannot reach this machine. The kit starts CMD in a shell of
 * its own process group, `{url}` replaced by the local relay's URL (harness/webhooks/relay.ts), reads the public URL the
 * program prints, and stops the whole group at the end of the run, on failure and on an interrupt too.
 *
 * The public URL is the first https URL the program prints (stdout or stderr) that is an origin alone — what tunnels
 * announce (`https://words.trycloudflare.com`) — so a link to documentation printed before it (a URL with a path) is
 * passed over. No such URL within the wait, or the program ending first, stops the command with what it printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export const TUNNEL_WAIT_MS = 30_000;

export class TunnelError extends Error {}

export interface Tunnel {
  publicUrl: string;
  stop(): Promise<void>;
}

const HTTPS_URL = /https:\/\/[^\s"'<>|)\]]+/g;

/** The public URL in a tunnel program's output so far, or undefined (see the module comment). */
export function tunnelUrlIn(text: string): string | undefined {
  const urls = [...text.matchAll(HTTPS_URL)].map((m) => m[0].replace(/[.,;:]+$/, ''));
  const origin = urls.find((u) => {
    try {
      const p = new URL(u);
      return (p.pathname === '/' || p.pathname === '') && !p.search;
    } catch {
      return false;
    }
  });
  return origin?.replace(/\/$/, '');
}

/** Whether any process of the group is left. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the program's whole group (the shell and what it started), SIGKILL to what is left after 3 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 3000;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive(pgid)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  await exited;
}

export async function startTunnel(command: string, localUrl: string, waitMs = TUNNEL_WAIT_MS): Promise<Tunnel> {
  if (!command.includes('{url}')) throw new TunnelError(`--tunnel: the command must contain {url} (where the kit's local address goes)`);
  const shown = command.split('{url}').join(localUrl);
  const child = spawn('/bin/sh', ['-c', shown], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  // The group dies with this process, however it ends.
  const onExit = () => {
    try {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', onExit);
  let output = '';
  const publicUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      const found = tunnelUrlIn(output);
      if (found) resolve(found);
      else reject(new TunnelError(`--tunnel: no https URL in what \`${shown}\` printed within ${waitMs / 1000} s${printed(output)}`));
    }, waitMs);
    const take = (c: Buffer) => {
      output += c.toString('utf8');
      const found = tunnelUrlIn(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new TunnelError(`--tunnel: \`${shown}\` could not be started: ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const found = tunnelUrlIn(output);
      if (found) resolve(found);
      else
        reject(
          new TunnelError(
            `--tunnel: \`${shown}\` ended (${signal ?? `exit code ${code}`}) without printing an https URL${printed(output)}`,
          ),
        );
    });
  }).catch(async (err: unknown) => {
    await stopGroup(child);
    process.off('exit', onExit);
    throw err;
  });
  // Keep reading, so a program that writes a lot never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    publicUrl,
    async stop() {
      await stopGroup(child);
      process.off('exit', onExit);
    },
  };
}

function printed(output: string): string {
  const lines = output.trim().split('\n').slice(-12);
  return output.trim() ? `; it printed:\n  ${lines.join('\n  ')}` : '; it printed nothing';
}
