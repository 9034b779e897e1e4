/**
 * Seeded random contracts for differential runs of the fast interpreter against the library's loop: word ops on edge
 * values, memory and copy ops at small and (rarely) huge offsets, GAS and MSIZE stored, hashes, logs, jumps, DUP/SWAP,
 * calls of every kind (to the other contracts, precompiles, an empty account), transient and persistent storage,
 * CREATE/CREATE2 (including a repeated salt), SELFDESTRUCT in callees, and early exits. Each result is SSTOREd so
 * that it reaches the state root.
 */
const MAX_WORD = (1n << 256n) - 1n;
export const CONTRACT_A = '0x1000000000000000000000000000000000000000';
export const CONTRACT_B = '0x1000000000000000000000000000000000000001';
export const CONTRACT_C = '0x1000000000000000000000000000000000000002';
export const RANDOM_SENDER = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b';

/** A linear congruential generator: the same seed gives the same programs on every run. */
class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state * 1103515245 + 12345) & 0x7fffffff;
    return this.state / 0x80000000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  word(): bigint {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(this.int(0x100000000));
    return v;
  }
  value(): bigint {
    const pick = this.int(12);
    if (pick === 0) return 0n;
    if (pick === 1) return 1n;
    if (pick === 2) return BigInt(this.int(300));
    if (pick === 3) return MAX_WORD;
    if (pick === 4) return 1n << 255n;
    if (pick === 5) return (1n << 255n) - 1n;
    if (pick === 6) return 1n << BigInt(this.int(256));
    if (pick === 7) return MAX_WORD - BigInt(this.int(300));
    if (pick === 8) return (1n << 64n) - 1n + BigInt(this.int(3));
    if (pick === 9) return this.word();
    if (pick === 10) return this.word() >> BigInt(this.int(256));
    return BigInt(this.int(40));
  }
}

function push(v: bigint, r: Random): string {
  if (v === 0n && r.next() < 0.5) return '5f';
  let h = v.toString(16);
  if (h.length % 2 === 1) h = `0${h}`;
  return (0x5f + h.length / 2).toString(16) + h;
}

const BINARY = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '0a',
  '0b',
  '10',
  '11',
  '12',
  '13',
  '14',
  '16',
  '17',
  '18',
  '1a',
  '1b',
  '1c',
  '1d',
];
const CALL_TARGETS = [
  CONTRACT_B.slice(2),
  CONTRACT_C.slice(2),
  `${'00'.repeat(19)}01`,
  `${'00'.repeat(19)}02`,
  `${'00'.repeat(19)}04`,
  `${'00'.repeat(19)}05`,
  `dead${'00'.repeat(18)}`,
];
const INIT_TAILS = ['', '60206000f3', '6000600060006000fd', 'fe'];

/** The code of one contract: `length` snippets; `depth` 0 is the transaction's target, 2 calls no further. */
function program(r: Random, depth: number, length: number): string {
  let code = '';
  let slot = 0;
  const p = (v: bigint): string => push(v, r);
  const store = (): void => {
    code += p(BigInt(slot++ % 64)) + '55';
  };
  const offset = (): bigint => (r.next() < 0.004 ? r.value() : BigInt(r.int(300)));
  for (let i = 0; i < length; i++) {
    const kind = r.int(32);
    if (kind < 4) {
      code += p(r.value()) + p(r.value()) + r.pick(BINARY);
      store();
    } else if (kind === 4) {
      code += p(r.value()) + p(r.value()) + p(r.value()) + r.pick(['08', '09']);
      store();
    } else if (kind === 5) {
      code += p(r.value()) + r.pick(['15', '19']);
      store();
    } else if (kind === 6 || kind === 7) {
      code += p(r.value()) + p(offset()) + (kind === 6 ? '52' : '53');
    } else if (kind === 8) {
      code += `${p(offset())}51`;
      store();
    } else if (kind === 9) {
      code += '5a';
      store();
      code += '59';
      store();
    } else if (kind === 10) {
      code += `${p(BigInt(r.int(100)))}${p(offset())}20`;
      store();
    } else if (kind === 11) {
      code += `${p(BigInt(r.int(80)))}35`;
      store();
    } else if (kind === 12) {
      code += p(BigInt(r.int(64))) + p(BigInt(r.int(64))) + p(offset()) + r.pick(['37', '39', '5e']);
    } else if (kind === 13) {
      const topics = r.int(5);
      for (let j = 0; j < topics; j++) code += p(r.value());
      code += p(BigInt(r.int(64))) + p(offset()) + (0xa0 + topics).toString(16);
    } else if (kind === 14) {
      const body = `${p(r.value())}50`;
      code += p(BigInt(r.int(2)));
      const dest = code.length / 2 + 4 + body.length / 2;
      code += `61${dest.toString(16).padStart(4, '0')}57${body}5b`;
    } else if (kind === 15) {
      const n = 1 + r.int(16);
      for (let j = 0; j < n + 1; j++) code += p(r.value());
      code += (0x80 + r.int(n)).toString(16) + (0x90 + r.int(n)).toString(16);
      store();
      for (let j = 0; j < n + 1; j++) code += '50';
    } else if ((kind === 16 || kind === 17) && depth < 2) {
      const op = r.pick(['f1', 'f2', 'f4', 'fa']);
      code += p(BigInt(r.int(64))) + p(BigInt(r.int(64))) + p(BigInt(r.int(128))) + p(BigInt(r.int(64)));
      if (op === 'f1' || op === 'f2') code += p(BigInt(r.int(3)));
      code += `73${r.pick(CALL_TARGETS)}${p(r.pick([0n, BigInt(r.int(100000)), BigInt(r.int(30000)), 1_000_000n, MAX_WORD]))}${op}`;
      store();
      code += '3d';
      store();
      if (r.next() < 0.5) code += `${p(BigInt(r.int(40)))}${p(BigInt(r.int(40)))}${p(BigInt(r.int(64)))}3e`;
    } else if (kind === 18) {
      code += `${p(r.value())}${p(BigInt(r.int(8)))}5d${p(BigInt(r.int(8)))}5c`;
      store();
    } else if (kind === 19) {
      code += `${p(BigInt(r.int(64)))}54`;
      store();
    } else if (kind === 20 || kind === 21 || kind === 22) {
      code += `${p(r.pick([0n, 1n, 2n, 5n, 0n]))}${p(BigInt(r.int(4)))}55`;
    } else if (kind === 23) {
      code += '303131';
      store();
      code += '47';
      store();
    } else if (kind === 24 && depth < 2) {
      const init = `6001600155${r.pick(INIT_TAILS)}`;
      code += `${p(BigInt(`0x${init.padEnd(64, '0')}`))}5f52`;
      const op = r.pick(['f0', 'f5']);
      if (op === 'f5') code += p(r.next() < 0.5 ? 7n : r.value());
      code += `${p(BigInt(init.length / 2))}5f${p(BigInt(r.int(2)))}${op}`;
      store();
    } else if (kind === 25 && depth > 0 && r.next() < 0.3) {
      code += `73${r.pick([CONTRACT_B.slice(2), `dead${'00'.repeat(18)}`, `2adc25665018aa1fe0e6bc666dac8fc2697ff9ba`])}ff`;
    } else if (kind === 26 && r.next() < 0.1) {
      code += r.pick(['50', 'fe', '600056', '5f5ffd', '60205ff3', '00']);
    } else if (kind >= 27) {
      code += `${p(r.value())}${p(r.value())}0a`;
      store();
    }
  }
  return `0x${code}`;
}

/** One random case: the pre state of three contracts and a sender, and the transaction's fields. */
export interface RandomCase {
  pre: Record<string, { balance: string; nonce: string; code: string; storage: Record<string, string> }>;
  data: string;
  gasLimit: bigint;
  value: bigint;
}

export function randomCase(seed: number): RandomCase {
  const r = new Random(seed);
  const pre: RandomCase['pre'] = {
    [CONTRACT_A]: { balance: '0x0de0b6b3a7640000', nonce: '0x00', code: program(r, 0, 10 + r.int(60)), storage: { '0x01': '0x01' } },
    [CONTRACT_B]: { balance: '0x10', nonce: '0x00', code: program(r, 1, 5 + r.int(25)), storage: {} },
    [CONTRACT_C]: { balance: '0x00', nonce: '0x00', code: program(r, 2, 5 + r.int(15)), storage: { '0x00': '0x05' } },
    [RANDOM_SENDER]: { balance: '0x3635c9adc5dea00000', nonce: '0x00', code: '0x', storage: {} },
  };
  let data = '0x';
  for (let i = 0, n = r.int(70); i < n; i++) data += r.int(256).toString(16).padStart(2, '0');
  const gasLimit = BigInt(21000 + r.int(20) * 1000 + (r.next() < 0.3 ? r.int(400000) : 2_000_000 + r.int(6_000_000)));
  return { pre, data, gasLimit, value: BigInt(r.int(3)) };
}
