/** The dev accounts' fast BIP-39/BIP-32 derivation (core/node/dev/hdKeys.ts) agrees with @scure/bip39 + @scure/bip32. */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { describe, expect, it } from 'vitest';
import { DEV_MNEMONIC, devAccounts } from '../../../core/node/dev/devChain.ts';
import { derivePrivateKeys, mnemonicSeed } from '../../../core/node/dev/hdKeys.ts';
import { createNobleSecp256k1 } from '../../../core/primitives/secp256k1/index.ts';

describe('dev HD keys', () => {
  it('default: the seed and the first 20 keys of the dev mnemonic equal @scure/bip32', () => {
    const seed = mnemonicSeed(DEV_MNEMONIC);
    expect(Buffer.from(seed).toString('hex')).toBe(Buffer.from(mnemonicToSeedSync(DEV_MNEMONIC)).toString('hex'));
    const root = HDKey.fromMasterSeed(seed);
    const keys = derivePrivateKeys(seed, "m/44'/60'/0'/0", 20);
    keys.forEach((key, i) =>
      expect(Buffer.from(key).toString('hex')).toBe(Buffer.from(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!).toString('hex')),
    );
    // The well-known first dev account (anvil, Hardhat).
    expect(devAccounts(1)[0].address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('behavior: a passphrase, another path and the pure-JS curve give the same keys as @scure/bip32', () => {
    const seed = mnemonicSeed(DEV_MNEMONIC, 'xone');
    expect(Buffer.from(seed).toString('hex')).toBe(Buffer.from(mnemonicToSeedSync(DEV_MNEMONIC, 'xone')).toString('hex'));
    const root = HDKey.fromMasterSeed(seed);
    const keys = derivePrivateKeys(seed, "m/44'/60'/7'/1", 3, createNobleSecp256k1());
    keys.forEach((key, i) =>
      expect(Buffer.from(key).toString('hex')).toBe(Buffer.from(root.derive(`m/44'/60'/7'/1/${i}`).privateKey!).toString('hex')),
    );
  });

  it('error: a malformed path is refused with its element named', () => {
    const seed = mnemonicSeed(DEV_MNEMONIC);
    expect(() => derivePrivateKeys(seed, "44'/60'", 1)).toThrow(/must start with m\//);
    expect(() => derivePrivateKeys(seed, "m/44'/x", 1)).toThrow(/bad BIP-32 path element x/);
  });
});
