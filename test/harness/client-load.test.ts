import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../harness/kit/kit-files.js';

/**
 * Every vitest worker and the CLI import the client: it loads undici's Agent, not the package's index,
 * whose fetch, WebSocket, cookies, cache and mock modules cost about 0.1 s of CPU per process and are never used.
 */
describe('harness/http/client.ts loading', () => {
  it("loads undici's Agent without the package index, and the agent sends", () => {
    const script = [
      "import { createRequire } from 'node:module';",
      "import { createServer } from 'node:http';",
      "const { createClient } = await import('./harness/http/client.ts');",
      "const server = createServer((_q, s) => s.end('{}')).listen(0);",
      "await new Promise((r) => server.once('listening', r));",
      'const client = createClient({ deadlineMs: 5000, maxResponseBytes: 1024 });',
      "const url = 'http://127.0.0.1:' + server.address().port + '/x';",
      "const ex = await client.send({ label: 'x', url, method: 'GET', headers: {}, body: Buffer.alloc(0) });",
      'await client.close(); server.close();',
      "const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/undici/'));",
      'console.log(JSON.stringify({ status: ex.response?.status, error: ex.error, loaded }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: KIT_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const seen = JSON.parse(out.trim().split('\n').at(-1)!) as { status?: number; error?: unknown; loaded: string[] };
    expect(seen.error).toBeUndefined();
    expect(seen.status).toBe(200);
    expect(seen.loaded.some((f) => f.endsWith('/undici/lib/dispatcher/agent.js'))).toBe(true);
    expect(seen.loaded.filter((f) => f.endsWith('/undici/index.js') || f.includes('/undici/lib/web/'))).toEqual([]);
  });
});
