/**
 * The ERC-20 of the execution benchmark, compiled at bench time with the npm `solc` compiler (no checked-in
 * bytecode): a minimal token whose `transfer` reads and writes two balance slots and emits `Transfer`.
 */
import { createRequire } from 'node:module';
import { bigIntToBytes, hexToBytes, padLeft } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
  mapping(address => uint256) public balanceOf;
  event Transfer(address indexed from, address indexed to, uint256 value);
  function transfer(address to, uint256 value) external returns (bool) {
    uint256 b = balanceOf[msg.sender];
    require(b >= value, "balance");
    unchecked { balanceOf[msg.sender] = b - value; }
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}`;

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
}

/** Compiles the token; returns its runtime bytecode and the compiler version. */
export function compileToken(): { runtime: Uint8Array; solcVersion: string } {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string; version(): string };
  const input = {
    language: 'Solidity',
    sources: { 'Token.sol': { content: SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'shanghai',
      outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const object = out.contracts['Token.sol']?.Token?.evm.deployedBytecode.object;
  if (!object) throw new Error('solc: no bytecode for Token');
  return { runtime: hexToBytes(`0x${object}`), solcVersion: solc.version() };
}

/** Storage slot of `balanceOf[holder]` (mapping at slot 0). */
export function balanceSlot(holder: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64);
  buf.set(padLeft(holder, 32), 0);
  return keccak256(buf);
}

/** Calldata of `transfer(to, value)`. */
export function transferCalldata(to: Uint8Array, value: bigint): Uint8Array {
  const data = new Uint8Array(4 + 64);
  data.set(keccak256(new TextEncoder().encode('transfer(address,uint256)')).subarray(0, 4), 0);
  data.set(padLeft(to, 32), 4);
  data.set(padLeft(bigIntToBytes(value), 32), 36);
  return data;
}
