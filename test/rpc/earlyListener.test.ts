import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { listenEarly } from '../../core/rpc/earlyListener.ts';

function post(port: number, body: string, path = '/', contentType = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('listenEarly', () => {
  it('default: answers a single eth_chainId at once and holds everything else until the hand-over', async () => {
    const early = await listenEarly('127.0.0.1', 0, 1337n, 1024);
    const { port } = early.address;
    try {
      expect(await post(port, '{"jsonrpc":"2.0","id":"a","method":"eth_chainId","params":[]}')).toEqual({
        status: 200,
        text: '{"jsonrpc":"2.0","id":"a","result":"0x539"}',
      });
      expect((await post(port, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')).text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x539"}');
      const answered: string[] = [];
      const held = [
        post(port, '{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}').then((r) => (answered.push('blockNumber'), r)),
        post(port, '[{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}]').then((r) => (answered.push('batch'), r)),
        post(port, 'x'.repeat(2000)).then((r) => (answered.push('too large'), r)),
        post(port, '{}', '/xone/v1/tx').then((r) => (answered.push('other path'), r)),
        post(port, 'text', '/', 'text/plain').then((r) => (answered.push('not json'), r)),
      ];
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      const wsMessage = new Promise<string>((resolve, reject) => (ws.once('message', (m) => resolve(String(m))), ws.once('error', reject)));
      await new Promise((r) => setTimeout(r, 200));
      expect(answered).toEqual([]);
      // The server side: unread requests keep their bodies for the real listener; read ones come with their text.
      const { WebSocketServer } = await import('ws');
      const wss = new WebSocketServer({ noServer: true });
      early.server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (c) => c.send('hello')));
      early.handOver(
        (req, res) => {
          let body = '';
          req.on('data', (d: Buffer) => (body += d.toString()));
          req.on('end', () => res.end(`server:${req.url}:${body}`));
        },
        (h) => h.res.end(h.body?.ok ? `read:${h.body.text}` : `refused:${h.body?.reason}`),
      );
      const results = await Promise.all(held);
      expect(results.map((r) => r.text)).toEqual([
        'read:{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}',
        'read:[{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}]',
        'refused:too-large',
        'server:/xone/v1/tx:{}',
        'server:/:text',
      ]);
      expect(await wsMessage).toBe('hello');
      ws.close();
      // After the hand-over every request is the server's, eth_chainId included.
      expect((await post(port, '{"jsonrpc":"2.0","id":9,"method":"eth_chainId"}')).text).toBe(
        'server:/:{"jsonrpc":"2.0","id":9,"method":"eth_chainId"}',
      );
    } finally {
      await early.close();
    }
  });

  it('error: a port in use is refused as listen refuses it', async () => {
    const a = await listenEarly('127.0.0.1', 0, 1n, 1024);
    try {
      await expect(listenEarly('127.0.0.1', a.address.port, 1n, 1024)).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await a.close();
    }
  });
});
