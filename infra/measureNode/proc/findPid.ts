import { readdir, readFile, readlink } from 'node:fs/promises';

const LISTEN_STATE = '0A';

/**
 * Finds the process listening on a TCP port, the way `ss -ltnp` does: the socket's inode from /proc/net/tcp and
 * /proc/net/tcp6 (state 0A = LISTEN), then the process whose /proc/PID/fd holds `socket:[inode]`. Returns the lowest
 * such pid (a pre-forked server's parent), or null when no readable process owns the port.
 */
export async function findPidByPort(port: number, procRoot = '/proc'): Promise<number | null> {
  const inodes = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`${procRoot}/net/${table}`, 'utf8').catch(() => '');
    for (const inode of listeningInodes(text, port)) inodes.add(inode);
  }
  if (inodes.size === 0) return null;
  const pids = (await readdir(procRoot))
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    const fds = await readdir(`${procRoot}/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => '');
      const match = /^socket:\[(\d+)\]$/.exec(link);
      if (match && inodes.has(match[1])) return pid;
    }
  }
  return null;
}

/** Inodes of the LISTEN sockets on `port` in one /proc/net/tcp[6] table. Exported for tests. */
export function listeningInodes(table: string, port: number): string[] {
  const out: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10) continue;
    const localPort = parseInt(cols[1].split(':').pop() ?? '', 16);
    if (localPort === port && cols[3] === LISTEN_STATE && cols[9] !== '0') out.push(cols[9]);
  }
  return out;
}
