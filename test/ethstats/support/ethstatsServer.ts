/** Main-thread handle of the test ethstats server worker (serverWorker.ts). */
import { once } from 'node:events';
import { spawnTsWorker } from '../../../core/runtime/spawnTsWorker.ts';
import type { ServerCommand, ServerEvent, ServerOptions, ServerReply } from './serverTypes.ts';

const DEFAULTS: ServerOptions = { secrets: ['s3cret'], pingIntervalMs: 1_000, pongTimeoutMs: 2_000, nodePongDelayMs: 0 };

export type { ServerEvent } from './serverTypes.ts';

/** Handle of a running test server. */
export interface TestEthstatsServer {
  /** `host:port` for `name:secret@host:port` (plain ws). */
  hostPort: string;
  events(): Promise<ServerEvent[]>;
  /** Resets the server for the next test: new options, connections dropped, events cleared. */
  configure(options: Partial<ServerOptions>): Promise<void>;
  /** Terminates every connection abruptly (as a crashed server would). */
  drop(): Promise<void>;
  requestHistory(list: unknown): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the server worker on a free 127.0.0.1 port and resolves once it listens. */
export async function startEthstatsServer(options: Partial<ServerOptions> = {}): Promise<TestEthstatsServer> {
  const opts: ServerOptions = { ...DEFAULTS, ...options };
  const worker = spawnTsWorker(new URL('./serverWorker.ts', import.meta.url), opts, { name: 'ethstats-test-server' });
  const [first] = (await once(worker, 'message')) as [ServerReply];
  if (first.type !== 'listening') throw new Error('test ethstats server did not start');
  let nextId = 1;
  const call = (cmd: Omit<ServerCommand, 'id'>): Promise<ServerEvent[] | undefined> =>
    new Promise((resolve) => {
      const id = nextId++;
      const onMessage = (reply: ServerReply) => {
        if (reply.type === 'reply' && reply.id === id) {
          worker.off('message', onMessage);
          resolve(reply.events);
        }
      };
      worker.on('message', onMessage);
      worker.postMessage({ ...cmd, id } as ServerCommand);
    });
  return {
    hostPort: `127.0.0.1:${first.port}`,
    events: async () => (await call({ cmd: 'events' })) ?? [],
    configure: async (options) =>
      void (await call({ cmd: 'configure', options: { ...DEFAULTS, ...options } } as Omit<ServerCommand, 'id'>)),
    drop: async () => void (await call({ cmd: 'drop' })),
    requestHistory: async (list) => void (await call({ cmd: 'request-history', list } as Omit<ServerCommand, 'id'>)),
    stop: async () => {
      const exited = once(worker, 'exit');
      await call({ cmd: 'stop' });
      await exited;
    },
  };
}
