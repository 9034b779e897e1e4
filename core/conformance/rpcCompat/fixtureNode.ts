/**
 * The node a suite runs against: DIR/genesis.json and DIR/chain.rlp imported into a fresh datadir (trusted import:
 * no seal checks, every root verified), then the node's own RPC server over that datadir on 127.0.0.1 with a random
 * port, with a transaction pool validating against the head state. Nothing here knows about any one fixture.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGenesis } from '../../chain/genesis/index.ts';
import { XoneError } from '../../errors.ts';
import { ChainService } from '../../chainService/chainService.ts';
import { nodeRpcDeps } from '../../rpcBackend/nodeRpcDeps.ts';
import { pendingBlockContext, poolStateAt } from '../../rpcBackend/poolContext.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { splitRlpStream } from '../../primitives/rlp.ts';
import { defaultRpcOptions } from '../../rpc/options.ts';
import { createRpcServer } from '../../rpc/server.ts';
import { openReadOnly } from '../../store/index.ts';
import { TxPool } from '../../txpool/index.ts';

export interface FixtureNodeOptions {
  /** Folder holding genesis.json and (optionally) chain.rlp. */
  testsDir: string;
  /** Where the temporary datadir is made (default: the OS temp folder). */
  workDir?: string;
  /** Keep the datadir after close (for inspection). */
  keepDatadir?: boolean;
}

export interface FixtureNode {
  url: string;
  datadir: string;
  head: { number: bigint; hash: string };
  /** Blocks imported from chain.rlp. */
  imported: number;
  close(): Promise<void>;
}

/** A fixture chain that cannot be imported (missing genesis, invalid block). */
export class FixtureChainError extends XoneError<'FIXTURE_CHAIN_INVALID'> {}

const BATCH = 128;
const EVM_TIMEOUT_MS = 5_000;

/** Imports the fixture chain and starts the RPC; close() stops the server and removes the datadir. */
export async function startFixtureNode(opts: FixtureNodeOptions): Promise<FixtureNode> {
  const genesisPath = join(opts.testsDir, 'genesis.json');
  if (!existsSync(genesisPath)) throw new FixtureChainError('FIXTURE_CHAIN_INVALID', `${genesisPath} not found`, { path: genesisPath });
  const genesis = parseGenesis(readFileSync(genesisPath, 'utf8'));
  const root = opts.workDir ?? tmpdir();
  mkdirSync(root, { recursive: true });
  const datadir = mkdtempSync(join(root, 'xone-rpc-compat-'));
  const cleanups: (() => void | Promise<void>)[] = [
    () => (opts.keepDatadir ? undefined : rmSync(datadir, { recursive: true, force: true })),
  ];
  const close = async (): Promise<void> => {
    while (cleanups.length) await cleanups.pop()?.();
  };
  try {
    const service = ChainService.open({ datadir, genesis, batch: BATCH, verifySeals: false });
    cleanups.push(() => service.close());
    const chainPath = join(opts.testsDir, 'chain.rlp');
    const blocks = existsSync(chainPath) ? splitRlpStream(readFileSync(chainPath)) : [];
    for (let i = 0; i < blocks.length; i += BATCH) {
      try {
        await service.importBlocks(blocks.slice(i, i + BATCH));
      } catch (err) {
        throw new FixtureChainError('FIXTURE_CHAIN_INVALID', `${chainPath}: ${err instanceof Error ? err.message : String(err)}`, {
          path: chainPath,
        });
      }
      service.steady();
    }
    const head = service.head();
    checkHeadFcu(opts.testsDir, bytesToHex(head.hash));
    const reader = openReadOnly(datadir);
    cleanups.push(() => reader.close());
    const pool = new TxPool(
      {},
      {
        state: () => poolStateAt(reader, head.number),
        context: () => pendingBlockContext(genesis.config, head.header, BigInt(Math.floor(Date.now() / 1000))),
      },
    );
    const deps = nodeRpcDeps({
      reader,
      config: genesis.config,
      head: () => head,
      pool,
      evmTimeoutMs: EVM_TIMEOUT_MS,
      gasCap: defaultRpcOptions.gasCap,
      traceMaxBytes: defaultRpcOptions.traceMaxBytes,
    });
    const server = createRpcServer({ host: '127.0.0.1', port: 0, evmTimeoutMs: EVM_TIMEOUT_MS }, deps);
    const { host, port } = await server.start();
    cleanups.push(() => server.close());
    return {
      url: `http://${host}:${port}/`,
      datadir,
      head: { number: head.number, hash: bytesToHex(head.hash) },
      imported: blocks.length,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Newer suites (post-merge) name their head in headfcu.json, the forkchoiceUpdated hive sends before the tests; a
 * trusted import makes the last block of chain.rlp the head (and safe and finalized), so the two must agree.
 */
function checkHeadFcu(testsDir: string, headHash: string): void {
  const path = join(testsDir, 'headfcu.json');
  if (!existsSync(path)) return;
  const fcu = JSON.parse(readFileSync(path, 'utf8')) as { params?: [{ headBlockHash?: string }?] };
  const want = fcu.params?.[0]?.headBlockHash?.toLowerCase();
  if (want !== undefined && want !== headHash) {
    throw new FixtureChainError('FIXTURE_CHAIN_INVALID', `${path}: head ${want} is not the last imported block ${headHash}`, {
      path,
      want,
      got: headHash,
    });
  }
}
