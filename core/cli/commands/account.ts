/**
 * `xone account new|import|list`: Web3 Secret Storage v3 keystores in `<datadir>/keystore` (or `--keystore <dir>`),
 * named and encrypted as geth does, so geth, ethers and `xone run --signer <file> --password <file>` read them.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Command } from 'commander';

interface AccountFlags {
  datadir?: string;
  keystore?: string;
  password?: string;
  lightkdf?: boolean;
}

function keystoreDir(flags: AccountFlags): string {
  if (flags.keystore) return flags.keystore;
  if (flags.datadir) return join(flags.datadir, 'keystore');
  throw new Error('--datadir <dir> or --keystore <dir> is required');
}

/** The keystore module, loaded on use so other commands (npm start) do not load scrypt and AES first. */
const keystore = () => import('../../keystore/index.ts');

async function password(flags: AccountFlags): Promise<string> {
  // Never prompt: a node is run by scripts and services; an empty password would be a silent foot-gun.
  if (!flags.password) throw new Error('--password <file> is required (a file whose first line is the password)');
  return (await keystore()).readPasswordFile(flags.password);
}

async function store(key: Uint8Array, flags: AccountFlags): Promise<void> {
  const { encryptKeystore, LIGHT_SCRYPT, STANDARD_SCRYPT, writeKeystore } = await keystore();
  const ks = encryptKeystore(key, await password(flags), flags.lightkdf ? LIGHT_SCRYPT : STANDARD_SCRYPT);
  const path = writeKeystore(keystoreDir(flags), ks);
  const { toChecksumAddress } = await import('../../primitives/address.ts');
  const { looseHexToBytes } = await import('../../primitives/hex.ts');
  process.stdout.write(
    `Public address of the key:   ${toChecksumAddress(looseHexToBytes(ks.address))}\nPath of the secret key file: ${path}\n`,
  );
}

const withCommon = (cmd: Command, needsPassword: boolean): Command =>
  cmd
    .option('--datadir <dir>', 'data directory; keystores live in <datadir>/keystore')
    .option('--keystore <dir>', 'keystore directory (overrides <datadir>/keystore)')
    .option('--password <file>', needsPassword ? 'file whose first line is the password (required)' : 'unused')
    .option('--lightkdf', 'cheaper scrypt (n=4096, p=6) as geth --lightkdf: faster, weaker against guessing');

/** Registers `account` and its subcommands. */
export function registerAccount(program: Command): void {
  const account = program.command('account').description('manage signer keys (Web3 Secret Storage v3 keystores)');
  withCommon(account.command('new').description('create a new random key and store it encrypted'), true).action(
    async (flags: AccountFlags) => {
      keystoreDir(flags);
      await store(new Uint8Array(randomBytes(32)), flags);
    },
  );
  withCommon(
    account
      .command('import')
      .argument('<keyfile>', 'raw private key file (64 hex digits, mode 0600)')
      .description('encrypt an existing raw key'),
    true,
  ).action(async (keyfile: string, flags: AccountFlags) => {
    keystoreDir(flags);
    const { readRawKeyFile } = await import('../../keystore/signerKey.ts');
    await store(readRawKeyFile(keyfile), flags);
  });
  account
    .command('list')
    .description('print the address and path of every keystore file')
    .option('--datadir <dir>', 'data directory; keystores live in <datadir>/keystore')
    .option('--keystore <dir>', 'keystore directory (overrides <datadir>/keystore)')
    .action(async (flags: AccountFlags) => {
      const { listKeystores } = await keystore();
      listKeystores(keystoreDir(flags)).forEach((e, i) => process.stdout.write(`Account #${i}: {${e.address}} keystore://${e.path}\n`));
    });
}
