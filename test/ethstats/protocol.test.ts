import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../core/ethstats/backoff.ts';
import { helloMessage, historyMessage, parseIncoming, type Outgoing } from '../../core/ethstats/protocol.ts';
import { SendQueue } from '../../core/ethstats/sendQueue.ts';
import { parseEthstatsUrl } from '../../core/ethstats/url.ts';

describe('parseEthstatsUrl', () => {
  it('default: splits name:secret@host:port and tries wss then ws, as geth does', () => {
    expect(parseEthstatsUrl('node-a:s3cret@stats.example:3000')).toEqual({
      name: 'node-a',
      secret: 's3cret',
      urls: ['wss://stats.example:3000/api', 'ws://stats.example:3000/api'],
    });
    expect(parseEthstatsUrl('n:p@ws://127.0.0.1:3000').urls).toEqual(['ws://127.0.0.1:3000/api']);
    expect(parseEthstatsUrl('n@h:1')).toMatchObject({ name: 'n', secret: '' });
  });
  it('error: names the expected shape', () => {
    expect(() => parseEthstatsUrl('no-at-sign')).toThrow(/should be nodename:secret@host:port/);
    expect(() => parseEthstatsUrl(':secret@host:1')).toThrow(/invalid ethstats url/);
  });
});

describe('backoffDelay', () => {
  it('behavior: doubles its cap per attempt up to the maximum, never below half the minimum', () => {
    const opts = { minMs: 1000, maxMs: 30_000 };
    expect([0, 1, 2, 3, 10].map((a) => backoffDelay(a, { ...opts, random: () => 0.999999 }))).toEqual([1000, 2000, 4000, 8000, 30_000]);
    expect(backoffDelay(5, { ...opts, random: () => 0 })).toBe(500);
  });
});

describe('protocol messages', () => {
  it('default: hello carries id, info and secret in an emit array', () => {
    const msg = JSON.parse(
      helloMessage('a', 's', {
        node: 'x',
        port: 1,
        net: '2040',
        protocol: 'p',
        api: 'No',
        os: 'linux',
        os_v: 'x64',
        client: '0.1.0',
        canUpdateHistory: true,
      }).text,
    );
    expect(msg).toEqual({
      emit: [
        'hello',
        {
          id: 'a',
          secret: 's',
          info: {
            name: 'a',
            node: 'x',
            port: 1,
            net: '2040',
            protocol: 'p',
            api: 'No',
            os: 'linux',
            os_v: 'x64',
            client: '0.1.0',
            canUpdateHistory: true,
          },
        },
      ],
    });
  });
  it('behavior: classifies Primus pings, ready, pongs, history requests and bad frames', () => {
    expect(parseIncoming('"primus::ping::1700000000000"')).toEqual({
      type: 'primus-ping',
      pong: { kind: 'pong', text: '"primus::pong::1700000000000"' },
    });
    expect(parseIncoming('{"emit":["ready"]}')).toEqual({ type: 'ready' });
    expect(parseIncoming('{"emit":["node-pong",{"clientTime":"t1","serverTime":5}]}')).toEqual({ type: 'node-pong', clientTime: 't1' });
    expect(parseIncoming('{"emit":["history",{"list":[3,2]}]}')).toEqual({ type: 'history', numbers: [3, 2] });
    expect(parseIncoming('{"emit":["history",{"list":"x"}]}')).toEqual({ type: 'history', numbers: null });
    expect(parseIncoming('{nope')).toEqual({ type: 'invalid', reason: 'not JSON' });
    expect(parseIncoming('{"foo":1}')).toEqual({ type: 'invalid', reason: 'no emit array' });
  });
  it('default: history is sent newest first', () => {
    const blocks = [1, 3, 2].map((number) => ({ number }) as never);
    expect(JSON.parse(historyMessage('a', blocks).text).emit[1].history.map((b: { number: number }) => b.number)).toEqual([3, 2, 1]);
  });
});

describe('SendQueue', () => {
  /** A sink that completes sends only when told, like a socket with a full buffer. */
  function slowSink() {
    const sent: string[] = [];
    const pending: (() => void)[] = [];
    return {
      sent,
      flush: () => pending.splice(0).forEach((f) => f()),
      sink: { send: (text: string, done: () => void) => (sent.push(text), pending.push(done)) },
    };
  }
  const m = (kind: Outgoing['kind'], text: string): Outgoing => ({ kind, text });

  it('behavior: writes one frame at a time, coalesces block/pending/stats and lets pongs jump the queue', () => {
    const { sent, flush, sink } = slowSink();
    const q = new SendQueue(sink, 10, () => {});
    q.push(m('stats', 's1'));
    q.push(m('block', 'b1'));
    q.push(m('block', 'b2'));
    q.push(m('latency', 'l1'));
    q.push(m('pong', 'p1'));
    expect(sent).toEqual(['s1']);
    while (q.length > 0 || sent.length < 4) {
      flush();
      if (sent.length >= 4) break;
    }
    expect(sent).toEqual(['s1', 'p1', 'b2', 'l1']);
  });

  it('behavior: stays bounded, dropping the oldest non-heartbeat frame and counting it', () => {
    const { sent, sink } = slowSink();
    const q = new SendQueue(sink, 3, () => {});
    for (let i = 0; i < 6; i++) q.push(m('history', `h${i}`));
    q.push(m('pong', 'p'));
    expect(sent).toEqual(['h0']);
    expect(q.length).toBe(3);
    expect(q.dropped).toBe(3);
  });
});
