/**
 * One real signature each recovery worker recovers before it reports ready (seeds: "each worker warms up with one
 * real signature"), so the first block does not pay for loading the binding and JIT-compiling the path, and a worker
 * whose backend is broken fails at start instead of in the middle of an import. Signed by private key 7 over
 * keccak256("xone recovery warm-up").
 */
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts';
import { recoverAddress, type Secp256k1Backend } from '../../primitives/secp256k1/index.ts';

const WARMUP_HASH = '0x1af500a320bf1966be49cb307eb53960a401eff52db16507f9e60a18ab390005';
const WARMUP_R = 0x51872be69ff337370411ecde4a6ed30303a3c82bcf9c1b8ff8992d221e576d29n;
const WARMUP_S = 0x421e76f9ab7ffa40fd68c39a34a02439a2875416dca1098c4ac1a535a2514e48n;
const WARMUP_RECOVERY = 0;
const WARMUP_ADDRESS = '0xd41c057fd1c78805aac12b0a94a405c0461a6fbb';

/** Recovers the warm-up signature; throws if the answer is wrong. */
export function warmUp(backend: Secp256k1Backend): void {
  const got = bytesToHex(recoverAddress(hexToBytes(WARMUP_HASH), WARMUP_R, WARMUP_S, WARMUP_RECOVERY, backend));
  if (got !== WARMUP_ADDRESS) throw new Error(`recovery warm-up recovered ${got}, expected ${WARMUP_ADDRESS} (backend ${backend.name})`);
}
