/**
 * `xone run`: starts the node. `--dev` runs the embedded dev chain (chain 1337, dev-mnemonic accounts, one signer,
 * 2 s blocks, datadir .xone/dev, RPC on 127.0.0.1:8545) and prints its accounts and URLs like anvil does.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseGenesis, type Genesis } from '../../chain/genesis/index.ts';
import { createLogger, terminalDestination } from '../../log/index.ts';
import type { Logger } from '../../log/types.ts';
import { GENESIS_FORKS, type GenesisFork } from '../../node/dev/cliqueGenesisJson.ts';
import { DEV_CHAIN_ID, devAccounts, devGenesisJson } from '../../node/dev/devChain.ts';
import { startChainThread } from '../../node/chainStart.ts';
import type { XoneNode } from '../../node/node.ts';
import type { NodeOptions } from '../../node/options.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import type { RpcOptions } from '../../rpc/index.ts';
import { listenEarly, type EarlyListener } from '../../rpc/earlyListener.ts';
import { defaultRpcOptions } from '../../rpc/options.ts';
import { RUNTIME_KIND } from '../runtimeKind.ts';
import { applyConfigSources } from '../config/runConfig.ts';
import { rangedInt } from './runRanges.ts';

interface RunFlags {
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

/** The JSON-RPC limit flags (geth's names) as server options; unset flags keep the server's defaults. */
function rpcLimits(flags: RunFlags): Partial<RpcOptions> {
  const out: Partial<RpcOptions> = {};
  if (flags['rpc.gascap'] !== undefined) out.gasCap = BigInt(rangedInt(flags['rpc.gascap'], '--rpc.gascap'));
  if (flags['rpc.evmtimeout'] !== undefined) out.evmTimeoutMs = rangedInt(flags['rpc.evmtimeout'], '--rpc.evmtimeout');
  if (flags['rpc.batchRequestLimit'] !== undefined) out.batchLimit = rangedInt(flags['rpc.batchRequestLimit'], '--rpc.batch-request-limit');
  if (flags['rpc.batchResponseMaxSize'] !== undefined) {
    out.batchResponseMaxBytes = rangedInt(flags['rpc.batchResponseMaxSize'], '--rpc.batch-response-max-size');
  }
  if (flags['http.ratelimit'] !== undefined) {
    const rate = rangedInt(flags['http.ratelimit'], '--http.ratelimit');
    const burst =
      flags['http.ratelimit.burst'] !== undefined ? rangedInt(flags['http.ratelimit.burst'], '--http.ratelimit.burst') : 2 * rate;
    out.rateLimit = { ratePerSecond: rate, burst };
  }
  if (flags['rpc.trustedGateways'] !== undefined) out.trustedGateways = ipList(flags['rpc.trustedGateways'], '--rpc.trusted-gateways');
  return out;
}

/** A comma-separated list of IP addresses (v4 or v6), each checked. */
function ipList(text: string, flag: string): string[] {
  const items = text.split(',').map((s) => s.trim());
  for (const ip of items) if (isIP(ip) === 0) throw new Error(`${flag} must be a comma-separated list of IP addresses, got "${ip}"`);
  return items;
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
      const terminal = format === 'terminal' || (format === 'auto' && process.stdout.isTTY === true);
      const logger = createLogger({
        level: flags.verbosity as 'info',
        name: 'xone',
        ...(terminal ? { destination: terminalDestination(1, process.stdout.isTTY === true) } : {}),
      });
      let genesis: Genesis;
      let signerKey: Uint8Array | undefined;
      let datadir = flags.datadir;
      // The RPC port is bound first: eth_chainId is answered while the rest starts, other calls wait for the node
      // (earlyListener.ts). Not with CORS, whose headers only the full server adds.
      const bindEarly = (chainId: bigint): Promise<EarlyListener | undefined> =>
        flags['http.corsdomain']
          ? Promise.resolve(undefined)
          : listenEarly(flags['http.addr'], rangedInt(flags['http.port'], '--http.port'), chainId, defaultRpcOptions.maxBodyBytes);
      let early: EarlyListener | undefined;
      try {
        early = flags.dev ? await bindEarly(BigInt(DEV_CHAIN_ID)) : undefined;
        const accounts = flags.dev ? devAccounts() : [];
        if (flags.dev) {
          const period = flags.period === undefined ? 2 : rangedInt(flags.period, '--period');
          const fork = devHardfork(flags.hardfork);
          genesis = parseGenesis(devGenesisJson(accounts, period, undefined, fork));
          signerKey = hexToBytes(accounts[0].privateKey);
          // Each fork's dev chain has its own genesis, so its own default datadir.
          datadir ??= resolve('.xone', fork === 'Osaka' ? 'dev' : `dev-${fork.toLowerCase()}`);
        } else {
          if (flags.hardfork !== undefined)
            throw new Error('--hardfork applies to the dev chain (--dev); a network takes its forks from --genesis');
          if (!flags.genesis) throw new Error('--genesis <file> is required (or use --dev)');
          if (!datadir) throw new Error('--datadir <dir> is required (or use --dev)');
          genesis = parseGenesis(readFileSync(flags.genesis, 'utf8'));
          early = await bindEarly(genesis.config.chainId);
          // The keystore module (scrypt) loads only for a keystore signer.
          if (flags.signer) signerKey = (await import('../../keystore/index.ts')).loadSignerKey(flags.signer, flags.password);
        }
        // A dev node with --peer follows a dev producer (same embedded genesis) instead of sealing its own blocks.
        const mine = Boolean(flags.mine || (flags.dev && flags.peer.length === 0));
        if (mine && !signerKey) throw new Error('--mine needs --signer <keyfile>');
        const options: NodeOptions = {
          datadir,
          genesis,
          dev: Boolean(flags.dev),
          ...(flags.peer.length ? { peers: flags.peer } : {}),
          mine,
          ...(signerKey ? { signerKey } : {}),
          http: {
            host: flags['http.addr'],
            port: rangedInt(flags['http.port'], '--http.port'),
            ...(flags['http.corsdomain'] ? { corsOrigins: flags['http.corsdomain'].split(',') } : {}),
          },
          ...(flags.batch !== undefined ? { batch: rangedInt(flags.batch, '--batch') } : {}),
          rpc: rpcLimits(flags),
          logFormat: terminal ? 'terminal' : 'json',
          ...(flags['rpc.workers'] !== undefined ? { rpcPool: { workers: rangedInt(flags['rpc.workers'], '--rpc.workers') } } : {}),
          ...(flags['debug.logslowblock'] !== undefined
            ? { logSlowBlockMs: rangedInt(flags['debug.logslowblock'], '--debug.logslowblock') }
            : {}),
          ...(flags.ethstats ? { ethstats: flags.ethstats } : {}),
          ...(flags.recoveryWorkers !== undefined ? { recoveryWorkers: rangedInt(flags.recoveryWorkers, '--recovery-workers') } : {}),
        };
        const node = await startNode({ ...options, http: { ...options.http, ...(early ? { early } : {}) } }, logger);
        node.lifecycle.handleSignals();
        if (flags.dev) printDevBanner(node.url, accounts);
        if (flags.peer.length) logger.info('following', { peers: flags.peer });
        logger.info('node started', { rpc: node.url, head: Number(node.headNumber), datadir, mine, runtime: RUNTIME_KIND });
      } catch (err) {
        // Start-up failed: the early-bound port must not keep the process alive.
        await early?.close();
        throw err;
      }
    });
}

/**
 * Starts the chain thread first, then loads the rest of the node (RPC, tx pool, the EVM behind eth_call) while the
 * worker opens the store on another core: the two start-ups overlap instead of adding up (issue #5: answer RPC
 * within 500 ms). A failed start closes the chain thread, so the process can exit with the error.
 */
async function startNode(options: NodeOptions, logger: Logger): Promise<XoneNode> {
  const chain = startChainThread(options);
  try {
    const { XoneNode } = await import('../../node/node.ts');
    return await XoneNode.start({ ...options, chain }, { logger });
  } catch (err) {
    await chain.thread.close().catch(() => undefined);
    throw err;
  }
}

function printDevBanner(url: string, accounts: { address: string; privateKey: string }[]): void {
  const lines = [
    '',
    'xOne TS dev chain (chain id 1337): development keys, never use them on a real network',
    '',
    'Accounts (10,000 ETH each)',
  ];
  accounts.slice(0, 10).forEach((a, i) => lines.push(`(${i}) ${a.address}`));
  lines.push('', 'Private keys');
  accounts.slice(0, 10).forEach((a, i) => lines.push(`(${i}) ${a.privateKey}`));
  lines.push(
    '',
    `Mnemonic: test test test test test test test test test test test junk`,
    '',
    `JSON-RPC (HTTP and WebSocket): ${url.replace('http://', 'http://')}`,
    `WebSocket: ${url.replace('http://', 'ws://')}`,
    '',
  );
  process.stdout.write(lines.join('\n') + '\n');
}

/** `--hardfork NAME` (anvil's names, any case) → the dev chain's genesis fork; Osaka when absent. */
export function devHardfork(name: string | undefined): GenesisFork {
  if (name === undefined) return 'Osaka';
  const fork = GENESIS_FORKS.find((f) => f.toLowerCase() === name.toLowerCase());
  if (fork === undefined) {
    throw new Error(`--hardfork ${name} is not a fork the dev chain runs (${GENESIS_FORKS.map((f) => f.toLowerCase()).join(', ')})`);
  }
  return fork;
}
