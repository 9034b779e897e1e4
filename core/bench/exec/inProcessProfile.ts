/**
 * A V8 CPU profile of part of this process's own run, through the inspector (the developer probes' `--prof FILE`):
 * `startProfile(file)` starts sampling every 200 us and returns what stops it and writes the `.cpuprofile`; without
 * a file both are no-ops, so a probe calls them unconditionally around the part it measures.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export async function startProfile(file: string | undefined): Promise<() => Promise<void>> {
  if (file === undefined) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}
