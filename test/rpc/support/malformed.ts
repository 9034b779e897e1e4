/**
 * Deterministic generator of malformed JSON-RPC requests for the fuzz test. Each case carries the body and the
 * error code(s) a correct server must answer with, so the test checks codes, not just "some error".
 */

/** mulberry32: small seeded PRNG so a failing case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Case {
  kind: string;
  body: string;
  /** Expected error code per answer (a batch lists one per call that gets an answer). */
  codes: number[];
  batch: boolean;
  /** Expected HTTP status. */
  status: number;
}

export interface Limits {
  maxBodyBytes: number;
  batchLimit: number;
  maxDepth: number;
}

const TYPED_METHODS: [string, (bad: unknown) => unknown[]][] = [
  ['eth_getBalance', (b) => [b, 'latest']],
  ['eth_getCode', (b) => [b, 'latest']],
  ['eth_getBlockByNumber', (b) => [b, false]],
  ['eth_getBlockByHash', (b) => [b, false]],
  ['eth_getTransactionByHash', (b) => [b]],
  ['eth_getTransactionReceipt', (b) => [b]],
  ['web3_sha3', (b) => [b]],
  ['debug_getRawBlock', (b) => [b]],
  ['eth_call', (b) => [typeof b === 'object' && b !== null && !Array.isArray(b) ? { to: b } : b]],
  ['eth_getLogs', (b) => [typeof b === 'object' && b !== null ? { address: [b] } : b]],
];

export function generator(seed: number, limits: Limits): () => Case {
  const r = prng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const hexChars = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
  const garbage = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(32 + int(90)))
      .join('')
      .replace(/}/g, '');
  const env = (method: string, params: unknown, id: unknown = int(1e6)) => ({ jsonrpc: '2.0', id, method, params });
  const badValues = (): unknown => {
    switch (int(11)) {
      case 0:
        return int(1e9);
      case 1:
        return true;
      case 2:
        return {};
      case 3:
        return [];
      case 4:
        return null;
      case 5:
        return '0x' + hexChars(1 + 2 * int(10)) + 'z';
      case 6:
        return hexChars(40);
      case 7:
        return '0x' + hexChars(39);
      case 8:
        return '0x' + 'f'.repeat(101 + 2 * int(100));
      case 9:
        return 1e308 * (r() > 0.5 ? 10 : 1);
      default:
        return '';
    }
  };
  const one = (kind: string, body: unknown, code: number, status = 200): Case => ({
    kind,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    codes: [code],
    batch: false,
    status,
  });
  const cases: (() => Case)[] = [
    // invalid JSON: an object that is never closed
    () => one('invalid-json', '{' + garbage(1 + int(200)), -32700),
    () => one('truncated', JSON.stringify(env('eth_blockNumber', [])).slice(0, 1 + int(40)), -32700),
    // wrong types / bad hex / huge numbers in params of typed methods
    () => {
      const [m, mk] = pick(TYPED_METHODS);
      return one('bad-param', env(m, mk(badValues())), -32602);
    },
    () => one('huge-block-number', env('eth_getBlockByNumber', ['0x' + '1' + hexChars(16 + int(100)), false]), -32602),
    () => one('bad-hex-address', env('eth_getBalance', ['0x' + hexChars(38) + pick(['zz', 'g0', 'Z1']), 'latest']), -32602),
    () => one('non-array-params', env('eth_chainId', pick([{ a: 1 }, 'x', 7, true])), -32602),
    () => one('too-many-params', env('eth_blockNumber', [1, 2, 3].slice(0, 1 + int(3))), -32602),
    // unknown methods
    () =>
      one(
        'unknown-method',
        env(
          pick(['eth_', 'foo_', 'evm_', 'anvil_', 'x', 'constructor', '__proto__', 'toString']) +
            garbage(int(12)).replace(/[^a-zA-Z_]/g, ''),
          [],
        ),
        -32601,
      ),
    // invalid envelopes
    () => one('no-version', { id: 1, method: 'eth_chainId' }, -32600),
    () => one('bad-version', { jsonrpc: pick(['1.0', 2, null, '2']), id: 1, method: 'eth_chainId' }, -32600),
    () => one('method-type', { jsonrpc: '2.0', id: 1, method: pick([1, null, {}, [], true]) }, -32600),
    () => one('id-type', { jsonrpc: '2.0', id: pick([{}, [], true]), method: 'eth_chainId' }, -32600),
    () => one('id-infinite', '{"jsonrpc":"2.0","id":1e400,"method":"eth_chainId"}', -32600),
    () => one('scalar-body', pick(['1', '"x"', 'true', 'null']), -32600),
    // deep nesting, in params or bare
    () => {
      const d = limits.maxDepth + 1 + int(3000);
      return one(
        'deep',
        r() > 0.5
          ? '['.repeat(d) + ']'.repeat(d)
          : `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${'['.repeat(d)}${']'.repeat(d)}}`,
        -32600,
      );
    },
    // oversized bodies
    () => one('oversized', JSON.stringify(env('web3_sha3', ['0x' + 'ab'.repeat(limits.maxBodyBytes / 2 + int(1000))])), -32600, 413),
    // batches: over the limit, empty, or of garbage members
    () => {
      const n = limits.batchLimit + 1 + int(100);
      return {
        kind: 'big-batch',
        body: JSON.stringify(Array.from({ length: n }, (_, i) => env('eth_blockNumber', [], i))),
        codes: [-32600],
        batch: true,
        status: 200,
      };
    },
    () => one('empty-batch', '[]', -32600),
    () => {
      const n = 1 + int(20);
      const members = Array.from({ length: n }, () =>
        pick<[unknown, number]>([
          [1, -32600],
          ['x', -32600],
          [env('nope_' + int(99), []), -32601],
          [env('eth_getBlockByNumber', ['bad', false]), -32602],
        ]),
      );
      return {
        kind: 'garbage-batch',
        body: JSON.stringify(members.map((m) => m[0])),
        codes: members.map((m) => m[1]),
        batch: true,
        status: 200,
      };
    },
  ];
  return () => pick(cases)();
}
