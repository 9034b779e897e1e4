/** The `/xone/v1/` routes in-process (`app.request`): status shape, range bounds in count and bytes, tx limits. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitRlpStream } from '../../core/primitives/rlp.ts';
import { MAX_TX_BYTES } from '../../core/sync/options.ts';
import { formatProgress } from '../../core/sync/progress.ts';
import { BLOCKS_CONTENT_TYPE, createSyncRoutes } from '../../core/sync/serving/routes.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';
import { openProducer, type Producer } from './support/chain.ts';

const newDatadir = datadirFactory();
let producer: Producer;

beforeAll(async () => {
  producer = openProducer(newDatadir());
  await producer.produce(6, { txEvery: 2, txsPerBlock: 2 });
});

afterAll(() => producer?.service.close());

describe('sync routes', () => {
  it('default: /status names the chain and the durable head', async () => {
    const app = createSyncRoutes({ source: producer.source });
    const status = (await (await app.request('/status')).json()) as Record<string, unknown>;
    expect(status).toMatchObject({
      protocol: 'xone/1',
      chainId: 1337,
      head: { number: 6 },
      clientVersion: expect.stringMatching(/^xone-ts\//),
    });
    expect(status.genesisHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('behavior: /blocks returns consecutive raw blocks, bounded by count, head and bytes (never less than one)', async () => {
    const sizes = [1, 2, 3].map((n) => (producer.source.blockRlp(BigInt(n)) as Uint8Array).length);
    const app = createSyncRoutes({ source: producer.source, maxBlocks: 4, maxBytes: sizes[0] + sizes[1] });
    const res = await app.request('/blocks?from=1&count=4');
    expect(res.headers.get('content-type')).toBe(BLOCKS_CONTENT_TYPE);
    expect(res.headers.get('x-xone-count')).toBe('2');
    const blocks = splitRlpStream(new Uint8Array(await res.arrayBuffer()));
    expect(blocks).toEqual([1n, 2n].map((n) => producer.source.blockRlp(n)));
    const tiny = createSyncRoutes({ source: producer.source, maxBytes: 10 });
    expect((await tiny.request('/blocks?from=3&count=3')).headers.get('x-xone-count')).toBe('1');
    expect((await app.request('/blocks?from=5')).headers.get('x-xone-count')).toBe('2');
    expect((await app.request('/blocks?from=1&count=5')).status).toBe(400);
  });

  it('error: /tx refuses an empty or oversized body', async () => {
    const app = createSyncRoutes({ source: producer.source });
    expect((await app.request('/tx', { method: 'POST', body: new Uint8Array(0) })).status).toBe(400);
    expect((await app.request('/tx', { method: 'POST', body: new Uint8Array(MAX_TX_BYTES + 1) })).status).toBe(413);
    expect(producer.submitted).toEqual([]);
  });

  it('default: a progress line for a TTY', () => {
    expect(formatProgress({ head: 1024n, target: 4096n, blocksPerSec: 812.4, txPerSec: 9744, etaSec: 3.8, peers: 1 })).toBe(
      'sync 1,024/4,096 (25.0%) 812 blk/s 9,744 tx/s eta 4s peers 1',
    );
  });
});
