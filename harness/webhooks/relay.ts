/**
 * The webhook relay behind a tunnel (`--tunnel`): one local HTTP server the user's tunnel program forwards to, in front
 * of every webhook receiver of the run (the doctor's in the CLI's process, each suite file's in the vitest workers,
 * each on its own port). A receiver registers its local URL and gets a public URL of its own, `<public base>/r/<token>/…`;
 * a delivery to it is forwarded to that receiver as it came (method, headers, the raw body: the signature is over those
 * bytes), and the receiver's reply goes back as it was given.
 *
 * Only registered receivers on this machine are reached, and only a holder of the run's key (never sent through the
 * tunnel) registers one. The relay's address and key are handed to the run's processes in `MPSI_RELAY`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const RELAY_ENV = 'MPSI_RELAY';
const REGISTER_PATH = '/.mpsi-relay/register';
const KEY_HEADER = 'x-mpsi-relay-key';
/** Hop-by-hop headers: the relay's own connection, not the delivery's. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

export interface RelayHandle {
  /** Where the relay listens (what the tunnel program forwards to). */
  url: string;
  /** The tunnel's public base URL, once known: receivers registered after it get public URLs under it. */
  publicBase?: string;
  /** What the run's processes read (RELAY_ENV) to register their receivers. */
  env(): string;
  close(): Promise<void>;
}

export async function startRelay(): Promise<RelayHandle> {
  const key = randomBytes(24).toString('hex');
  const routes = new Map<string, URL>();
  const sockets = new Set<Socket>();
  const handle: RelayHandle = {
    url: '',
    env: () => JSON.stringify({ url: handle.url, key, publicBase: handle.publicBase }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function register(req: IncomingMessage, res: ServerResponse): void {
    if (req.headers[KEY_HEADER] !== key || !handle.publicBase) {
      res.writeHead(403).end();
      return;
    }
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    req.on('end', () => {
      let local: URL;
      try {
        local = new URL(String((JSON.parse(text) as { url?: unknown }).url));
        if (local.protocol !== 'http:' || !/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(local.hostname)) throw new Error('not local');
      } catch {
        res.writeHead(400).end();
        return;
      }
      const token = randomBytes(8).toString('hex');
      routes.set(token, local);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ url: `${handle.publicBase}/r/${token}${local.pathname}` }));
    });
  }

  function forward(req: IncomingMessage, res: ServerResponse): void {
    const m = /^\/r\/([0-9a-f]{16})(\/[^?]*)?(\?.*)?$/.exec(req.url ?? '');
    const to = m ? routes.get(m[1]!) : undefined;
    if (!m || !to) {
      res.writeHead(404).end();
      req.resume();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (HOP.has(name.toLowerCase())) continue;
      const prev = headers[name];
      headers[name] = prev === undefined ? req.rawHeaders[i + 1]! : [...[prev].flat(), req.rawHeaders[i + 1]!];
    }
    const out = httpRequest(
      { host: to.hostname.replace(/^\[|\]$/g, ''), port: to.port, method: req.method, path: `${m[2] ?? '/'}${m[3] ?? ''}`, headers },
      (answer) => {
        const back: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP.has(k)) back[k] = v;
        res.writeHead(answer.statusCode ?? 502, back);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  }

  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === REGISTER_PATH) register(req, res);
    else forward(req, res);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  handle.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return handle;
}

/**
 * The public URL of a receiver listening at `localUrl`, from the run's relay (RELAY_ENV in `env`), or undefined when
 * the run has no tunnel.
 */
export function relayPublicUrlFor(env: NodeJS.ProcessEnv = process.env): ((localUrl: string) => Promise<string>) | undefined {
  const raw = env[RELAY_ENV];
  if (!raw) return undefined;
  const relay = JSON.parse(raw) as { url: string; key: string };
  return (localUrl) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ url: localUrl });
      const req = httpRequest(
        `${relay.url}${REGISTER_PATH}`,
        { method: 'POST', headers: { [KEY_HEADER]: relay.key, 'content-type': 'application/json' } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString('utf8');
          });
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`the webhook relay refused the receiver (HTTP ${res.statusCode})`));
            else resolve((JSON.parse(text) as { url: string }).url);
          });
        },
      );
      req.on('error', (err) => reject(new Error(`the webhook relay cannot be reached: ${err.message}`)));
      req.end(body);
    });
}
