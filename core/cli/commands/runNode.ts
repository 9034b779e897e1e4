/**
 * The part of `xone run` after its RPC port is bound (run.ts): the genesis (embedded dev chain or --genesis), the
 * signer key, the logger, the chain thread and the node, then the dev banner.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseGenesis, type Genesis } from '../../chain/genesis/index.ts';
import { createLogger, terminalDestination } from '../../log/index.ts';
import type { Logger } from '../../log/types.ts';
import { GENESIS_FORKS, type GenesisFork } from '../../node/dev/cliqueGenesisJson.ts';
import { devAccounts, devGenesisJson } from '../../node/dev/devChain.ts';
import { startChainThread } from '../../node/chainStart.ts';
import type { XoneNode } from '../../node/node.ts';
import type { NodeOptions } from '../../node/options.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import type { RpcOptions } from '../../rpc/index.ts';
import type { EarlyListener } from '../../rpc/earlyListener.ts';
import { RUNTIME_KIND } from '../runtimeKind.ts';
import type { RunFlags } from './run.ts';
import { rangedInt } from './runRanges.ts';

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

/**
 * Starts the node for `xone run`'s flags. `early` is the dev chain's already-bound port; a network's port is bound
 * through `bindEarly` once its genesis (and so its chain id) is read.
 */
export async function runNode(
  flags: RunFlags,
  early: EarlyListener | undefined,
  bindEarly: (chainId: bigint) => Promise<EarlyListener | undefined>,
): Promise<void> {
  const format = flags['log.format'];
  const terminal = format === 'terminal' || (format === 'auto' && process.stdout.isTTY === true);
  const logger = createLogger({
    level: flags.verbosity as 'info',
    name: 'xone',
    ...(terminal ? { destination: terminalDestination(1, process.stdout.isTTY === true) } : {}),
  });
  let genesis: Genesis;
  let signerKey: Uint8Array | undefined;
  let datadir = flags.datadir;
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
