/**
 * Crash tests of reorgs (issue #16): a writer child (reorgWriter.ts) inserts a scripted chain whose side branches keep
 * winning (fork 1-4 blocks below the head, then outweigh it), through the real import pipeline with real fsyncs. The
 * parent SIGKILLs it at random moments, often right inside a reorg, reopens the datadir itself and checks that the
 * head is one the script passes through (never a mix of two branches), no later than the step in flight and no
 * earlier than the last durable one, that the committed state is exactly that head's (its root recomputed from the
 * state tables), and that `db check` is clean. Producer mode (every block durable) and follower mode (batch 8).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureTree, TREE_KEYS } from '../../core/bench/reorg/fixture.ts';
import type { TreeBlock } from '../../core/bench/reorg/blockTree.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { addressFromPrivateKey } from '../../core/primitives/secp256k1/index.ts';
import { encodeAccount } from '../../core/state/account.ts';
import { dumpAccounts } from '../../core/state/store/dumpAccounts.ts';
import { ChainStore, checkStore } from '../../core/store/index.ts';
import { MemoryNodeStore, SecureTrie } from '../../core/trie/index.ts';
import { bundleWriter } from './bundleWriter.ts';
import { killsPerMode } from './crashHarness.ts';

const REPO = join(import.meta.dirname, '..', '..');
// A reorg writer starts slower than the store writer (it loads the EVM): fewer rounds, half of them aimed at reorgs.
const KILLS = Math.max(10, Math.ceil(killsPerMode() / 8));

interface Step {
  rlp: string;
  head: string;
  kind: 'head' | 'side' | 'reorg';
}

/** A chain that forks and heals: each round extends the head, then a branch 1-4 deep that wins at its last block. */
async function buildScript(rounds: number, seed: number): Promise<{ steps: Step[]; byHash: Map<string, TreeBlock> }> {
  let rnd = seed;
  const random = (n: number): number => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), (rnd >>> 16) % n);
  const tree = fixtureTree();
  const carol = addressFromPrivateKey(TREE_KEYS[2]);
  const byHash = new Map<string, TreeBlock>([[bytesToHex(tree.genesis.hash), tree.genesis]]);
  const steps: Step[] = [];
  let head = tree.genesis;
  const add = (b: TreeBlock, kind: Step['kind']): void => {
    byHash.set(bytesToHex(b.hash), b);
    if (kind !== 'side') head = b;
    steps.push({ rlp: bytesToHex(b.rlp), head: bytesToHex(head.hash), kind });
  };
  for (let r = 0; r < rounds; r++) {
    for (let i = 1 + random(2); i > 0; i--)
      add(await tree.child(head, { transfers: [{ key: TREE_KEYS[0], to: carol, value: 1n }] }), 'head');
    const depth = Math.min(1 + random(4), Number(head.number));
    let fork = head;
    for (let i = 0; i < depth; i++) fork = byHash.get(bytesToHex(fork.header.parentHash)) as TreeBlock;
    // The branch's first block is out of turn (weight 1): it outweighs the head only at its last block, depth + 1.
    let tip = fork;
    for (let i = 0; i <= depth; i++) {
      tip = await tree.child(tip, {
        difficulty: i === 0 ? 1n : 2n,
        salt: 1 + (r % 250),
        transfers: [{ key: TREE_KEYS[1], to: carol, value: BigInt(r + 2) }],
      });
      add(tip, i === depth ? 'reorg' : 'side');
    }
  }
  return { steps, byHash };
}

interface Writer {
  proc: ChildProcess;
  lines: AsyncIterator<string>;
}

function startWriter(bundle: string, datadir: string, script: string, batch: number): Writer {
  const proc = spawn(process.execPath, [bundle, '--datadir', datadir, '--script', script, '--batch', String(batch)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return { proc, lines: createInterface({ input: proc.stdout! })[Symbol.asyncIterator]() };
}

const exited = (p: ChildProcess) =>
  new Promise<void>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve() : p.once('exit', () => resolve())));

/** The state root of the current state tables, recomputed from every account row (the fixture has no storage). */
function committedStateRoot(store: ChainStore): string {
  const trie = new SecureTrie(new MemoryNodeStore());
  for (const a of dumpAccounts(store)) trie.put(a.address, encodeAccount(a.account));
  return bytesToHex(trie.commit());
}

async function crashLoop(batch: number, seed: number): Promise<Record<string, number>> {
  const datadir = join(REPO, '.xone', 'crash', `reorg-${batch}-${process.pid}`);
  const scriptFile = join(REPO, '.xone', 'crash', `reorg-script-${batch}-${process.pid}.json`);
  rmSync(datadir, { recursive: true, force: true });
  const t0 = performance.now();
  const { steps, byHash } = await buildScript(40, seed);
  const built = performance.now() - t0;
  writeFileSync(scriptFile, JSON.stringify(steps.map((s) => ({ rlp: s.rlp }))));
  // Genesis is the head before the first step (step -1).
  const headIndex = new Map<string, number[]>([[bytesToHex(fixtureTree().genesis.hash), [-1]]]);
  steps.forEach((s, i) => headIndex.set(s.head, [...(headIndex.get(s.head) ?? []), i]));
  let rnd = seed * 31 + 7;
  const random = (n: number): number => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), (rnd >>> 16) % n);
  const result: Record<string, number> = { kills: 0, reorgKills: 0, finalStep: -1, reorgsSeen: 0 };
  let durable = -1;
  let next = startWriter(bundle, datadir, scriptFile, batch);
  try {
    for (let round = 0; round < KILLS; round++) {
      const w = next;
      expect((await w.lines.next()).value).toBe('ready');
      w.proc.stdin!.write('go\n');
      next = startWriter(bundle, datadir, scriptFile, batch);
      let started = -1;
      let done = -1;
      const read = async (): Promise<string | undefined> => {
        const r = await w.lines.next();
        if (r.done) return undefined;
        const [word, n, kind] = r.value.split(' ');
        if (word === 'step') started = Number(n);
        if (word === 'done') done = Number(n);
        if (word === 'done' && kind === 'reorg') result.reorgsSeen++;
        if (word === 'durable') durable = Math.max(durable, Number(n));
        return r.value;
      };
      // Half the rounds die just as a reorg starts (plus 0-11 ms: inside its transaction or its commit), the
      // others after 1-3 new durable points plus 0 to batch-1 more blocks (a follower's open batch is lost).
      const atReorg = random(2) === 0;
      const wantDurable = 1 + random(3);
      const extra = random(Math.max(1, batch));
      let durableNew = 0;
      let doneAfter = 0;
      for (let line = await read(); line !== undefined && line !== 'end'; line = await read()) {
        const [word, n, kind] = line.split(' ');
        if (atReorg && word === 'step' && steps[Number(n)].kind === 'reorg' && Number(n) > durable) break;
        if (atReorg) continue;
        if (word === 'durable' && durableNew < wantDurable) durableNew++;
        else if (durableNew >= wantDurable && word === 'done' && kind !== 'known' && ++doneAfter > extra) break;
      }
      if (atReorg) {
        result.reorgKills++;
        const delay = random(12);
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      }
      w.proc.kill('SIGKILL');
      await exited(w.proc);
      result.kills++;
      for (let line = await read(); line !== undefined; line = await read());

      const store = ChainStore.open({ datadir });
      try {
        const head = store.getHead();
        const hash = head ? bytesToHex(head.hash) : bytesToHex(fixtureTree().genesis.hash);
        // The head is one the script passes through, between the last durable step and the one in flight.
        const candidates = (headIndex.get(hash) ?? []).filter((j) => j >= durable && j <= Math.max(started, done, durable));
        expect(candidates.length, `head ${hash} (round ${round}, durable ${durable}, started ${started})`).toBeGreaterThan(0);
        result.finalStep = Math.max(...candidates);
        if (head) {
          const tip = byHash.get(hash) as TreeBlock;
          // Its whole chain is canonical, and the committed state is exactly its state.
          for (let b: TreeBlock = tip; b.number > 0n; b = byHash.get(bytesToHex(b.header.parentHash)) as TreeBlock)
            expect(bytesToHex(store.getCanonicalHash(Number(b.number)) as Uint8Array)).toBe(bytesToHex(b.hash));
          expect(store.getCanonicalHash(head.number + 1)).toBeUndefined();
          expect(committedStateRoot(store)).toBe(bytesToHex(tip.header.stateRoot));
        }
      } finally {
        store.close();
      }
      if ((round + 1) % 5 === 0 || round === KILLS - 1) {
        const report = checkStore(datadir);
        expect(report.problems).toEqual([]);
        expect(report).toMatchObject({ ok: true, segments: { uncommittedTailBytes: 0, strayFiles: 0 } });
      }
    }
  } finally {
    next.proc.kill('SIGKILL');
    await exited(next.proc);
    rmSync(datadir, { recursive: true, force: true });
    rmSync(scriptFile, { force: true });
  }
  return { ...result, scriptBlocks: steps.length, buildMs: Math.round(built), loopMs: Math.round(performance.now() - t0 - built) };
}

let bundle = '';
beforeAll(async () => {
  bundle = await bundleWriter('reorg', 'reorgWriter.ts');
});
afterAll(() => rmSync(bundle, { force: true }));

describe('crash: reorgs (unwind and re-import in one durable commit)', () => {
  it(`behavior: producer: ${KILLS} SIGKILLs, many inside a reorg, leave the old head or the new, never a mix`, async () => {
    const r = await crashLoop(0, 41);
    console.log(`crash reorg producer: ${JSON.stringify(r)}`);
    expect(r.kills).toBe(KILLS);
    expect(r.reorgKills).toBeGreaterThan(0);
    expect(r.reorgsSeen).toBeGreaterThan(0);
  }, 600_000);

  it(`behavior: follower (batch 8): ${KILLS} SIGKILLs leave a committed head and its exact state`, async () => {
    const r = await crashLoop(8, 43);
    console.log(`crash reorg follower: ${JSON.stringify(r)}`);
    expect(r.kills).toBe(KILLS);
    expect(r.reorgsSeen).toBeGreaterThan(0);
  }, 600_000);
});
