/** Starts bench/support/serve-reference.ts in a child process and talks to it. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildReference {
  url: string;
  memory(): Promise<{ rss: number; heapUsed: number; heapTotal: number; external: number; gcRan: boolean }>;
  stats(): Promise<{ internalFailures: number }>;
  close(): Promise<void>;
}

const SERVER = fileURLToPath(new URL('./serve-reference.ts', import.meta.url));

function ask<T>(child: ChildProcess, msg: string, field: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      if (m && typeof m === 'object' && field in m) {
        child.off('message', onMessage);
        resolve((m as Record<string, T>)[field]!);
      }
    };
    child.on('message', onMessage);
    child.send(msg, (err) => err && reject(err));
  });
}

export async function startChildReference(timeScale = 0.002): Promise<ChildReference> {
  const child = fork(SERVER, [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, BENCH_TIME_SCALE: String(timeScale) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`reference child exited with ${code}`)));
    child.on('message', (m: unknown) => {
      if (m && typeof m === 'object' && 'url' in m) resolve(String((m as { url: unknown }).url));
    });
  });
  child.removeAllListeners('exit');
  return {
    url,
    memory: () => ask(child, 'memory', 'memory'),
    stats: () => ask(child, 'stats', 'stats'),
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send('close');
      }),
  };
}
