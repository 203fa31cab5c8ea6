/**
 * The target's round trip before vitest starts: how many workers the run keeps depends on it
 * (harness/run/sequencer.ts workersFor). A HEAD of the base URL, whatever it answers: only the time is read. The
 * fewest milliseconds of a few tries, one after another: the first pays for the connection, and a busy machine only
 * ever adds time. undefined when the target did not answer: the run then keeps its usual workers and says nothing.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

function once(url: URL, timeoutMs: number): Promise<number | undefined> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'HEAD', timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

export async function measureRoundTrip(baseUrl: string, tries = 3, timeoutMs = 1000): Promise<number | undefined> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  let best: number | undefined;
  for (let i = 0; i < tries; i++) {
    const ms = await once(url, timeoutMs);
    if (ms === undefined) return best;
    best = Math.min(best ?? ms, ms);
  }
  return best === undefined ? undefined : Math.round(best);
}
