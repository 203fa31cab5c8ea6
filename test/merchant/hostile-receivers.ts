/**
 * Receivers that misbehave at the transport, not in what they say: each accepts the connection
 * (so it is reachable) and then streams without end, resets, closes, answers bytes that are not
 * HTTP, or dribbles its reply slower than the 5-second rule. Each listens on port 0 of the
 * loopback and is closed by its `close`.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';

export type HostileKind = 'streamer' | 'resetter' | 'closer' | 'garbage' | 'slow-loris';

export const HOSTILE_KINDS: readonly HostileKind[] = ['streamer', 'resetter', 'closer', 'garbage', 'slow-loris'];

/** What each one does, and the words its certificate must use for it. */
export const HOSTILE_DOC: Record<HostileKind, { does: string; finding: RegExp }> = {
  streamer: {
    does: 'answers HTTP 200 with a body starting "success" and streams up to 1 GiB after it, 64 KiB every 10 ms',
    finding: /still sending after \d+ bytes at the deadline/,
  },
  resetter: { does: 'accepts every connection, then resets it (TCP RST) without reading', finding: /reset/ },
  closer: { does: 'accepts every connection, reads the request, then closes it without a reply', finding: /closed .*without a reply/ },
  garbage: { does: 'answers every request with bytes that are not HTTP, then closes', finding: /not HTTP/ },
  'slow-loris': {
    does: 'answers HTTP 200 and sends "success" one byte every 900 ms',
    finding: /still sending after \d+ bytes at the deadline/,
  },
};

const GIB = 1024 ** 3;

export interface Hostile {
  url: string;
  close(): Promise<void>;
}

export async function startHostile(kind: HostileKind): Promise<Hostile> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let server: Server | HttpServer;
  if (kind === 'streamer' || kind === 'slow-loris') {
    server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      if (kind === 'slow-loris') {
        let i = 0;
        const t = setInterval(() => {
          if (i >= 7 || res.destroyed) {
            clearInterval(t);
            timers.delete(t);
            res.end();
            return;
          }
          res.write('success'[i++]!);
        }, 900);
        timers.add(t);
        return;
      }
      // Paced (64 KiB every 10 ms, about 6 MB/s) so that a test run does not load the machine; the unpaced 1 GiB reply, and
      // the deadline holding while it keeps the event loop busy, are test/hostile/merchant-receivers.test.ts's.
      const chunk = Buffer.alloc(64 * 1024, 'x');
      res.write('success');
      let sent = 7;
      const t = setInterval(() => {
        if (sent >= GIB || res.destroyed) {
          clearInterval(t);
          timers.delete(t);
          res.end();
          return;
        }
        sent += chunk.length;
        res.write(chunk);
      }, 10);
      timers.add(t);
    });
  } else {
    server = createServer((socket) => {
      if (kind === 'resetter') return void socket.resetAndDestroy();
      socket.once('data', () => {
        if (kind === 'closer') socket.end();
        else socket.end('\x00\x01garbage, not HTTP\r\n\r\n\xff\xfe');
      });
      socket.on('error', () => {});
    });
  }
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((r) => {
        for (const t of timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
