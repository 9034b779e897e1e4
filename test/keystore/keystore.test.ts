/**
 * Web3 Secret Storage v3 keystores: the spec's scrypt test vector, round trips with ethers in both directions, the
 * `xone account new|import|list` commands (geth file names, mode 0600) and loading `--signer` with `--password`.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { encryptKeystoreJson, Wallet } from 'ethers';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../core/cli/main.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { decryptKeystore, encryptKeystore, LIGHT_SCRYPT, loadSignerKey, parseKeystore } from '../../core/keystore/index.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';

/** The scrypt example of the Web3 Secret Storage Definition (password "testpassword"). */
const SPEC_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: { dklen: 32, n: 262144, p: 8, r: 1, salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19' },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};
const SPEC_KEY = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';

const dir = mkdtempSync(join(tmpdir(), 'xone-keystore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function xone(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  try {
    return { code: await main(args), out };
  } finally {
    spy.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

describe('keystore v3', () => {
  // The vector costs 8 scrypt runs at n = 2^18 in JavaScript (OpenSSL refuses r = 1 at that n): ~10 s of CPU on a quiet
  // core, 35 s measured under test:loaded, so it gets more than the suite's 30 s.
  it('conformance: decrypts the spec scrypt vector (a wrong password is refused below, with a cheaper kdf)', { timeout: 180_000 }, () => {
    const ks = parseKeystore(JSON.stringify(SPEC_VECTOR));
    expect(bytesToHex(decryptKeystore(ks, 'testpassword'))).toBe(SPEC_KEY);
  });

  it("behavior: our keystore opens in ethers, and ethers' keystore opens in ours", async () => {
    const key = hexToBytes(SPEC_KEY);
    const ours = encryptKeystore(key, 'pässword', LIGHT_SCRYPT);
    const wallet = await Wallet.fromEncryptedJson(JSON.stringify(ours), 'pässword');
    expect(wallet.privateKey).toBe(SPEC_KEY);
    expect(wallet.address.toLowerCase()).toBe(`0x${ours.address}`);
    const theirs = await encryptKeystoreJson({ address: new Wallet(SPEC_KEY).address, privateKey: SPEC_KEY }, 'pw', {
      scrypt: { N: 4096 },
    });
    expect(bytesToHex(decryptKeystore(parseKeystore(theirs), 'pw'))).toBe(SPEC_KEY);
  });

  it('error: malformed keystores get typed errors', () => {
    expect(() => parseKeystore('nope')).toThrow(expect.objectContaining({ code: 'KEYSTORE_INVALID' }));
    expect(() => parseKeystore(JSON.stringify({ ...SPEC_VECTOR, version: 1 }))).toThrow(
      expect.objectContaining({ code: 'KEYSTORE_INVALID' }),
    );
    const cbc = { ...SPEC_VECTOR, crypto: { ...SPEC_VECTOR.crypto, cipher: 'aes-128-cbc' } };
    expect(() => parseKeystore(JSON.stringify(cbc))).toThrow(/aes-128-cbc/);
  });
});

describe('xone account', () => {
  const datadir = join(dir, 'data');
  const pwFile = join(dir, 'pw.txt');
  writeFileSync(pwFile, 'hunter2\nignored second line\n');

  it('default: new and import write geth-named 0600 keystores that list shows and run --signer loads', async () => {
    const created = await xone('account', 'new', '--datadir', datadir, '--password', pwFile, '--lightkdf');
    expect(created.code).toBe(0);
    const keyFile = join(dir, 'raw.key');
    writeFileSync(keyFile, SPEC_KEY.slice(2) + '\n', { mode: 0o600 });
    const imported = await xone('account', 'import', keyFile, '--datadir', datadir, '--password', pwFile, '--lightkdf');
    expect(imported.code).toBe(0);
    const path = /Path of the secret key file: (.*)/.exec(imported.out)?.[1] as string;
    expect(basename(path)).toMatch(/^UTC--\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z--[0-9a-f]{40}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(bytesToHex(loadSignerKey(path, pwFile))).toBe(SPEC_KEY);
    expect(await Wallet.fromEncryptedJson(readFileSync(path, 'utf8'), 'hunter2')).toHaveProperty('privateKey', SPEC_KEY);

    const listed = await xone('account', 'list', '--datadir', datadir);
    const lines = listed.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`Account #1: {${new Wallet(SPEC_KEY).address}} keystore://${path}`);
  });

  it('error: a keystore signer needs --password; a loose raw key file is refused; a wrong password is refused', async () => {
    const ks = join(dir, 'signer.json');
    writeFileSync(ks, JSON.stringify(encryptKeystore(hexToBytes(SPEC_KEY), 'hunter2', LIGHT_SCRYPT)));
    expect(() => loadSignerKey(ks)).toThrow(expect.objectContaining({ code: 'KEYSTORE_PASSWORD_REQUIRED' }));
    const badPw = join(dir, 'bad.txt');
    writeFileSync(badPw, 'nope');
    expect(() => loadSignerKey(ks, badPw)).toThrow(expect.objectContaining({ code: 'KEYSTORE_WRONG_PASSWORD' }));
    const loose = join(dir, 'loose.key');
    writeFileSync(loose, SPEC_KEY);
    chmodSync(loose, 0o644);
    expect(() => loadSignerKey(loose)).toThrow(expect.objectContaining({ code: 'KEY_FILE_PERMISSIONS' }));
    const refused = await xone('account', 'import', loose, '--datadir', datadir, '--password', pwFile);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('chmod 600');
    expect((await xone('account', 'new', '--datadir', datadir)).out).toContain('--password <file> is required');
    // xone run reads --signer the same way, before anything is opened.
    const genesis = join(dir, 'genesis.json');
    writeFileSync(genesis, JSON.stringify(devGenesisJson(devAccounts(1), 2)));
    const run = await xone('run', '--genesis', genesis, '--datadir', join(dir, 'run'), '--mine', '--signer', ks);
    expect(run.code).toBe(1);
    expect(run.out).toContain('give its password with --password <file>');
  });
});
