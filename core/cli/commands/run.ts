/**
 * `xone run`: starts the node. `--dev` runs the embedded dev chain (chain 1337, dev-mnemonic accounts, one signer,
 * 2 s blocks, datadir .xone/dev, RPC on 127.0.0.1:8545) and prints its accounts and URLs like anvil does.
 *
 * This file holds the flags and binds the RPC port; everything else (genesis, dev accounts, logger, chain thread,
 * node) is in `runNode.ts`, imported only once the port answers eth_chainId: a start loads a few small modules before
 * its first answer instead of the whole node (issue #5: `npm start` answers within 500 ms).
 */
import type { Command } from 'commander';
import { DEV_CHAIN_ID } from '../../node/dev/devChainId.ts';
import { listenEarly, type EarlyListener } from '../../rpc/earlyListener.ts';
import { defaultRpcOptions } from '../../rpc/options.ts';
import { applyConfigSources } from '../config/runConfig.ts';
import { rangedInt } from './runRanges.ts';

export interface RunFlags {
  dev?: boolean;
  datadir?: string;
  genesis?: string;
  mine?: boolean;
  peer: string[];
  signer?: string;
  password?: string;
  'http.addr': string;
  'http.port': string;
  'http.corsdomain'?: string;
  batch?: string;
  period?: string;
  hardfork?: string;
  verbosity: string;
  'log.format': string;
  'debug.logslowblock'?: string;
  'rpc.gascap'?: string;
  'rpc.evmtimeout'?: string;
  'rpc.batchRequestLimit'?: string;
  'rpc.batchResponseMaxSize'?: string;
  'http.ratelimit'?: string;
  'http.ratelimit.burst'?: string;
  ethstats?: string;
  recoveryWorkers?: string;
  'rpc.workers'?: string;
  'rpc.trustedGateways'?: string;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('start the node (use --dev for the embedded dev chain)')
    .option('--config <file>', 'JSON file of flag values, keys are flag names without -- (flags and XONE_* variables win over it)')
    .option('--dev', 'embedded dev chain: dev-mnemonic accounts, one signer, mines every 2 s')
    .option('--datadir <dir>', 'data directory (default .xone/dev with --dev)')
    .option('--genesis <file>', 'geth-format genesis.json of the network')
    .option('--mine', 'seal blocks with --signer (implied by --dev unless --peer is given)')
    .option(
      '--peer <url>',
      'follow this xOne node (its RPC base URL); repeatable',
      (url: string, all: string[]) => [...all, url],
      [] as string[],
    )
    .option('--signer <file>', 'Clique signer key: a v3 keystore file (with --password) or a raw key file (mode 0600)')
    .option('--password <file>', 'file whose first line is the password of the --signer keystore')
    .option('--http.addr <addr>', 'JSON-RPC listen address', '127.0.0.1')
    .option('--http.port <port>', 'JSON-RPC port (HTTP and WebSocket)', '8545')
    .option('--http.corsdomain <origins>', 'comma-separated CORS origins (* for any)')
    .option('--batch <n>', 'group-commit batch: 0 producer, 1-128 follower (default 0 with --mine, else 128)')
    .option('--period <seconds>', 'dev chain block period (default 2)')
    .option('--hardfork <name>', 'dev chain fork from genesis: shanghai, cancun, prague or osaka (default osaka, as anvil)')
    .option('--rpc.gascap <gas>', 'gas cap of eth_call / eth_estimateGas (default 50000000)')
    .option('--rpc.evmtimeout <ms>', 'timeout of eth_call / eth_estimateGas in ms (default 5000)')
    .option('--rpc.workers <n>', 'RPC execution threads for eth_call and other long reads (default max(8, 2 x cores))')
    .option(
      '--rpc.trusted-gateways <addrs>',
      'comma-separated gateway addresses whose X-Xone-Client header names the client for the execution pool share',
    )
    .option('--rpc.batch-request-limit <n>', 'most calls in one JSON-RPC batch (default 1000)')
    .option('--rpc.batch-response-max-size <bytes>', 'most bytes of results in one batch (default 25000000)')
    .option('--http.ratelimit <perSecond>', 'per-client-IP token bucket: calls per second (off by default; loopback exempt)')
    .option('--http.ratelimit.burst <n>', 'bucket size of --http.ratelimit (default 2x the rate)')
    .option('--debug.logslowblock <ms>', 'log a "Slow block" JSON line for each block whose import took at least ms (0 = every block)')
    .option('--recovery-workers <n>', 'sender recovery threads of a follower (0 = in the chain thread; default max(2, cores - 2))')
    .option('--ethstats <name:secret@host:port>', 'report to an ethstats server (geth protocol; host may carry ws:// or wss://)')
    .option('--verbosity <level>', 'log level: trace, debug, info, warn, error', 'info')
    .option('--log.format <format>', 'log lines: terminal (readable, as geth), json, or auto (terminal when stdout is a TTY)', 'auto')
    // Before the action: fill unset flags from XONE_* variables, then the config file, failing on any bad entry.
    .hook('preAction', (command) => applyConfigSources(command))
    .action(async (flags: RunFlags) => {
      const format = flags['log.format'];
      if (!['auto', 'terminal', 'json'].includes(format)) throw new Error(`--log.format must be auto, terminal or json, got ${format}`);
      // The RPC port is bound first: eth_chainId is answered while the rest starts, other calls wait for the node
      // (earlyListener.ts). Not with CORS, whose headers only the full server adds.
      const bindEarly = (chainId: bigint): Promise<EarlyListener | undefined> =>
        flags['http.corsdomain']
          ? Promise.resolve(undefined)
          : listenEarly(flags['http.addr'], rangedInt(flags['http.port'], '--http.port'), chainId, defaultRpcOptions.maxBodyBytes);
      let early: EarlyListener | undefined;
      try {
        early = flags.dev ? await bindEarly(BigInt(DEV_CHAIN_ID)) : undefined;
        const { runNode } = await import('./runNode.ts');
        await runNode(flags, early, async (chainId) => (early = await bindEarly(chainId)));
      } catch (err) {
        // Start-up failed: the early-bound port must not keep the process alive.
        await early?.close();
        throw err;
      }
    });
}
