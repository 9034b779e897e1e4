/**
 * The dev node's main-thread warm-up (issue #15: the first sends after start, or after `evm_setAutomine true`, should
 * cost no more than later ones). A fresh node's first automine sends cost ~2x the main-thread CPU of later ones (8-17
 * ms against 4-5 ms, session 8): every function on the send path (HTTP parse and write, the JSON-RPC dispatch, the
 * transaction's decoding, sender recovery and the pool's state reads, the receipt lookup, block encoding) is parsed,
 * compiled and run in V8's slowest tier the first times. So once the RPC server listens, the node sends itself a few
 * throwaway rounds of what a test suite sends, through its own HTTP port and the real handler, and none of them
 * changes anything: the transaction can never be paid for (its value is 2^256 - 1, so the pool refuses it for
 * insufficient funds after decoding, recovering and reading its sender's account, whatever the genesis funds), the
 * receipt asked for is of a hash no transaction has, and the block read is the head.
 */
import { Agent, request } from 'node:http';
import { signTransaction } from '../../chain/transaction/sign.ts';
import { bytesToHex } from '../../primitives/hex.ts';

/** Rounds of the three calls: 20 brought a fresh node's first 5 sends to the later sends' CPU (session 8, load 17-20). */
export const WARM_RPC_ROUNDS = 20;

const MAX_UINT256 = (1n << 256n) - 1n;
/** Any key: no account can pay `MAX_UINT256` plus gas. */
const THROWAWAY_KEY = new Uint8Array(32).fill(0x11);
const UNKNOWN_TX_HASH = '0x' + '00'.repeat(31) + '01';

/** The host to reach a server bound to `host` from this process (a wildcard bind answers on loopback). */
function reachable(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

/** POSTs `body`; resolves with the answer's text ('' when the request failed). */
function post(agent: Agent, host: string, port: number, body: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host,
        port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve(text));
        res.on('error', () => resolve(''));
      },
    );
    req.on('error', () => resolve(''));
    req.end(body);
  });
}

/**
 * Sends the warm-up rounds to the node's own JSON-RPC server at `host:port`, one request at a time (a user's request
 * arriving meanwhile waits for one of them at most), until `stopped()` (the node closing). Failures are ignored: it
 * only warms code. Resolves with the last round's answers (for tests).
 */
export async function warmRpcPath(
  host: string,
  port: number,
  chainId: bigint,
  stopped: () => boolean,
  rounds = WARM_RPC_ROUNDS,
): Promise<string[]> {
  const raw = signTransaction(
    {
      type: 2,
      chainId,
      nonce: 0n,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 1_000_000_000_000n,
      gasLimit: 21_000n,
      to: new Uint8Array(20).fill(0xde),
      value: MAX_UINT256,
      data: new Uint8Array(0),
    },
    THROWAWAY_KEY,
  ).raw;
  const calls = [
    { method: 'eth_sendRawTransaction', params: [bytesToHex(raw)] },
    { method: 'eth_getTransactionReceipt', params: [UNKNOWN_TX_HASH] },
    { method: 'eth_getBlockByNumber', params: ['latest', true] },
  ].map((c, id) => JSON.stringify({ jsonrpc: '2.0', id, ...c }));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const to = reachable(host);
  let answers: string[] = [];
  try {
    for (let i = 0; i < rounds && !stopped(); i++) {
      answers = [];
      for (const body of calls) answers.push(await post(agent, to, port, body));
    }
    return answers;
  } finally {
    agent.destroy();
  }
}
