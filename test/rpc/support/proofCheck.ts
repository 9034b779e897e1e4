/**
 * Verifies an eth_getProof answer (EIP-1186) against a block's state root with @ethereumjs/mpt and ethers' RLP, an
 * implementation independent of ours: the account proof must prove exactly the answered nonce, balance, storage hash
 * and code hash (or the account's absence, with the empty values), and each storage proof its value under the
 * answered storage hash.
 */
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { decodeRlp, getBytes, keccak256, toBeArray, zeroPadValue } from 'ethers';

/** eth_getProof's JSON result. */
export interface ProofJson {
  address: string;
  accountProof: string[];
  balance: string;
  codeHash: string;
  nonce: string;
  storageHash: string;
  storageProof: { key: string; value: string; proof: string[] }[];
}

const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_CODE_HASH = keccak256('0x');
const bytes = (list: string[]) => list.map((h) => getBytes(h));
const quantity = (field: string): bigint => (field === '0x' ? 0n : BigInt(field));

/** Throws with what differs when `p` is not a valid proof of its own fields under `stateRoot`. */
export async function verifyEip1186(stateRoot: string, p: ProofJson): Promise<void> {
  const leaf = await verifyMerkleProof(getBytes(p.address), bytes(p.accountProof), { root: getBytes(stateRoot), useKeyHashing: true });
  const proven =
    leaf === null
      ? { nonce: 0n, balance: 0n, storageHash: EMPTY_TRIE_ROOT, codeHash: EMPTY_CODE_HASH }
      : (() => {
          const [nonce, balance, storageHash, codeHash] = decodeRlp(leaf) as string[];
          return { nonce: quantity(nonce), balance: quantity(balance), storageHash, codeHash };
        })();
  const answered = { nonce: BigInt(p.nonce), balance: BigInt(p.balance), storageHash: p.storageHash, codeHash: p.codeHash };
  if (JSON.stringify(proven, big) !== JSON.stringify(answered, big))
    throw new Error(`account proof of ${p.address} proves ${JSON.stringify(proven, big)}, answer says ${JSON.stringify(answered, big)}`);
  for (const s of p.storageProof) {
    if (p.storageHash === EMPTY_TRIE_ROOT) {
      // An empty storage trie has no node to prove from: the answer must be the zero value with an empty proof.
      if (s.proof.length !== 0 || BigInt(s.value) !== 0n) throw new Error(`empty storage of ${p.address} answered ${JSON.stringify(s)}`);
      continue;
    }
    const key = getBytes(zeroPadValue(toBeArray(BigInt(s.key)), 32));
    const value = await verifyMerkleProof(key, bytes(s.proof), { root: getBytes(p.storageHash), useKeyHashing: true });
    const got = value === null ? 0n : quantity(decodeRlp(value) as string);
    if (got !== BigInt(s.value)) throw new Error(`storage proof of ${p.address} slot ${s.key} proves ${got}, answer says ${s.value}`);
  }
}

const big = (_: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
