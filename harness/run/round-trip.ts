/**
 * The target's round trip before vitest starts: how many workers the run keeps depends on it
 * (harness/run/sequencer.ts workersFor). A HEAD of the base URL, whatever it answers: only the time is read. The
 * fewest milliseconds of a few tries, one after another: the first pays for the connection, and a busy machine only
 * ever adds time. undefined when the target did not answer: the run then keeps its usual workers and says nothing.
 *
 * Over the network the checks use (harness/http/network.ts): the profile's TLS options on a direct connection; through a
 * proxy, the kit's own client (each try then pays for its tunnel, which a proxied run's requests pay too).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createClient } from '../http/client.js';
import { makeNetwork, type Network, proxyFor } from '../http/network.js';

function once(url: URL, timeoutMs: number, agent: HttpAgent): Promise<number | undefined> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'HEAD', timeout: timeoutMs, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

function viaClient(network: Network, timeoutMs: number): (url: URL) => Promise<number | undefined> {
  const client = createClient({ deadlineMs: timeoutMs, maxResponseBytes: 64 * 1024, network });
  return async (url) => {
    const t0 = performance.now();
    const ex = await client.send({ label: 'round trip', url: url.href, method: 'HEAD', headers: {}, body: Buffer.alloc(0) });
    void client.close();
    return ex.response ? performance.now() - t0 : undefined;
  };
}

export async function measureRoundTrip(
  baseUrl: string,
  network: Network = makeNetwork(undefined),
  tries = 3,
  timeoutMs = 1000,
): Promise<number | undefined> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const proxied = proxyFor(url, network.proxy) !== undefined;
  const agent =
    url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, ...network.tls?.connect }) : new HttpAgent({ keepAlive: true });
  let best: number | undefined;
  try {
    for (let i = 0; i < tries; i++) {
      const ms = proxied ? await viaClient(network, timeoutMs)(url) : await once(url, timeoutMs, agent);
      if (ms === undefined) return best;
      best = Math.min(best ?? ms, ms);
    }
  } finally {
    agent.destroy();
  }
  return best === undefined ? undefined : Math.round(best);
}
