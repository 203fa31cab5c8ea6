/**
 * Preloaded into every Node process of a measured run (bench/cpu.ts puts `--import <this file>` in
 * NODE_OPTIONS, which the CLI, vitest, its workers, the embedded reference and the Allure generator
 * all inherit): at its end, each process writes its own CPU time to $MPSI_CPU_LOG/<pid>.json.
 * Plain ESM, so it loads before tsx or vite can transform anything.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.MPSI_CPU_LOG;
if (dir) {
  const startedAt = Date.now();
  const argv = process.argv.slice(1);
  // Children reaped by this process (clock ticks, fields 16 and 17 of /proc/self/stat): what runs
  // outside Node (esbuild's service) is seen only there.
  const reapedChildrenMs = () => {
    try {
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[13]) + Number(fields[14])) * 10;
    } catch {
      return 0;
    }
  };
  // MPSI_CPU_PROFILE=dir: a V8 CPU profile of each process too (NODE_OPTIONS may not carry --cpu-prof).
  const profileDir = process.env.MPSI_CPU_PROFILE;
  let session;
  if (profileDir) {
    session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.start');
  }
  const record = () => {
    const { user, system } = process.cpuUsage();
    const entry = {
      pid: process.pid,
      ppid: process.ppid,
      argv,
      userMs: Math.round(user / 1000),
      systemMs: Math.round(system / 1000),
      reapedChildrenMs: reapedChildrenMs(),
      wallMs: Date.now() - startedAt,
      allure: process.env.MPSI_ALLURE_PACKAGE_JSON !== undefined && argv.length === 0,
    };
    try {
      writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(entry));
    } catch {
      // a measurement never changes how a run ends
    }
    // After the figures: vitest kills a worker that takes long to stop, and the profile takes a while to write.
    // A same-thread inspector session answers synchronously: the profile is written before the process ends.
    session?.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(profileDir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
    session = undefined;
  };
  process.on('exit', record);
  // vitest stops its workers (and the CLI the reference) with SIGTERM, which skips 'exit' when no one handles it:
  // record, then die of the signal as the process would have, unless the process handles it itself.
  const onTerm = (signal) => {
    record();
    if (process.listenerCount(signal) === 1) {
      process.off(signal, onTerm);
      process.kill(process.pid, signal);
    }
  };
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onTerm);
}
