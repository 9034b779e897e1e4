/**
 * `xone init --genesis G --datadir D`: creates a datadir holding the genesis block and state (and checks an existing
 * one was made from the same genesis). `xone export --datadir D [--from N] [--to M] FILE`: writes canonical blocks as
 * concatenated RLP (the format `xone import` and geth's `import` read).
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Command } from 'commander';

function blockNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${flag} must be a block number, got ${text}`);
  return n;
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('create a datadir from a genesis.json (or check that an existing one matches it)')
    .requiredOption('--genesis <file>', 'geth-format genesis.json')
    .requiredOption('--datadir <dir>', 'data directory (created when missing)')
    .action(async (opts: { genesis: string; datadir: string }) => {
      // Loaded on use, so other commands (npm start) do not load the genesis parser or the chain service first.
      const { parseGenesis } = await import('../../chain/genesis/index.ts');
      const { bytesToHex } = await import('../../primitives/hex.ts');
      const genesis = parseGenesis(readFileSync(opts.genesis, 'utf8'));
      const { ChainService } = await import('../../chainService/chainService.ts');
      const chain = ChainService.open({ datadir: opts.datadir, genesis, batch: 0 });
      try {
        const head = chain.head();
        process.stdout.write(`datadir ${opts.datadir}: chain id ${genesis.config.chainId}, head ${head.number} ${bytesToHex(head.hash)}\n`);
      } finally {
        chain.close();
      }
    });
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write canonical blocks as concatenated RLP')
    .argument('<file>', 'output file')
    .requiredOption('--datadir <dir>', 'data directory')
    .option('--from <n>', 'first block (default 1: the genesis is built from genesis.json, not imported)', '1')
    .option('--to <n>', 'last block (default: the head)')
    .action(async (file: string, opts: { datadir: string; from: string; to?: string }) => {
      const { openReadOnly } = await import('../../store/index.ts');
      const { rawBlock } = await import('../../store/read/rawBlock.ts');
      const reader = openReadOnly(opts.datadir);
      try {
        const head = reader.getHead('head');
        if (!head) throw new Error(`datadir ${opts.datadir} has no head block`);
        const from = blockNumber(opts.from, '--from');
        const to = opts.to === undefined ? head.number : Math.min(blockNumber(opts.to, '--to'), head.number);
        const fd = openSync(file, 'w');
        let bytes = 0;
        try {
          for (let n = from; n <= to; n++) {
            const hash = reader.getCanonicalHash(n);
            const rlp = hash && rawBlock(reader, hash);
            if (!rlp) throw new Error(`block ${n} is missing from the datadir`);
            writeSync(fd, rlp);
            bytes += rlp.length;
          }
        } finally {
          closeSync(fd);
        }
        process.stdout.write(`exported blocks ${from}..${to} (${Math.max(0, to - from + 1)} blocks, ${bytes} bytes) to ${file}\n`);
      } finally {
        reader.close();
      }
    });
}
