/**
 * The reference in a child process of its own, so a bench's load generator and the reference do
 * not share one event loop and the reference's memory is measured alone. Talks over IPC:
 * sends {url} once listening; answers 'memory' (after a GC when --expose-gc is on) and 'stats';
 * 'close' stops it.
 */
import { startReference } from '../../reference/index.js';

const timeScale = Number(process.env['BENCH_TIME_SCALE'] ?? '0.002');
let internalFailures = 0;
const ref = await startReference({
  port: 0,
  timeScale,
  log: (line) => {
    if (/internal failure/.test(line)) internalFailures += 1;
  },
});

process.on('message', async (msg: unknown) => {
  if (msg === 'memory') {
    const g = (globalThis as { gc?: () => void }).gc;
    g?.();
    g?.();
    const m = process.memoryUsage();
    process.send?.({ memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, gcRan: Boolean(g) } });
  } else if (msg === 'stats') {
    process.send?.({ stats: { internalFailures } });
  } else if (msg === 'close') {
    await ref.close();
    process.exit(0);
  }
});
process.send?.({ url: ref.url });
