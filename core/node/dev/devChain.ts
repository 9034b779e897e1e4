/**
 * The embedded dev chain behind `npm start` / `xone run --dev`: the usual dev mnemonic ("test test … junk", the one
 * anvil and Hardhat use, so wallets and scripts already know its accounts) funds 20 accounts with 10,000 ETH each;
 * account 0 is also the chain's only Clique signer. Chain id 1337 (geth --dev), every fork through the newest this
 * node runs (Osaka; `--hardfork` picks an older one) from genesis, 2 s blocks, 30 M gas. The genesis is built as geth-format JSON and goes through the same parser as any
 * other network's genesis.json.
 */
import { bytesToHex } from '../../primitives/hex.ts';
import { addressFromPublicKey } from '../../primitives/secp256k1/address.ts';
import { toChecksumAddress } from '../../primitives/address.ts';
import { cliqueGenesisJson, type GenesisFork } from './cliqueGenesisJson.ts';
import { derivePrivateKeys, ecdhCurve, mnemonicSeed } from './hdKeys.ts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
import { DEV_CHAIN_ID } from './devChainId.ts';
export { DEV_CHAIN_ID };
export const DEV_ACCOUNT_COUNT = 20;
/** 10,000 ETH in wei. */
const DEV_BALANCE = 10_000n * 10n ** 18n;

export interface DevAccount {
  /** EIP-55 address. */
  address: string;
  /** 0x-prefixed private key: public knowledge, for development only. */
  privateKey: string;
}

/** Accounts m/44'/60'/0'/0/i of the dev mnemonic (derived on node:crypto alone: hdKeys.ts). */
export function devAccounts(count = DEV_ACCOUNT_COUNT): DevAccount[] {
  return derivePrivateKeys(mnemonicSeed(DEV_MNEMONIC), "m/44'/60'/0'/0", count).map((key) => ({
    address: toChecksumAddress(addressFromPublicKey(ecdhCurve.publicKeyFromPrivate(key))),
    privateKey: bytesToHex(key),
  }));
}

/**
 * The dev chain's genesis.json (geth format) with `period` seconds between blocks (genesis time 0 unless given), on
 * `fork` (default Osaka, the newest this node runs).
 */
export function devGenesisJson(
  accounts: readonly DevAccount[] = devAccounts(),
  period = 2,
  timestamp?: number,
  fork: GenesisFork = 'Osaka',
): Record<string, unknown> {
  const alloc: Record<string, bigint> = {};
  for (const a of accounts) alloc[a.address.slice(2).toLowerCase()] = DEV_BALANCE;
  const signer = Buffer.from(accounts[0].address.slice(2), 'hex');
  return cliqueGenesisJson({
    chainId: DEV_CHAIN_ID,
    period,
    epoch: 900,
    signers: [signer],
    alloc,
    fork,
    ...(timestamp !== undefined ? { timestamp } : {}),
  });
}
