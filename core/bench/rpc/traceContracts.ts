/**
 * Contracts for the tracing tests, compiled at test time with npm `solc` (Shanghai, optimizer off): nested calls of
 * every kind, logs, value, CREATE/CREATE2, reverts with a reason and with a custom error, SELFDESTRUCT, a precompile,
 * calls refused before they start, and a loop of calls (the 200-call transaction of bench:rpc).
 */
import solc from 'solc';

export const TRACE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Child {
    uint256 public x;
    event Set(uint256 v);
    error Custom(uint256 a);
    constructor() payable {}
    function set(uint256 v) external payable returns (uint256) { x = v; emit Set(v); return v * 2; }
    function fail() external pure { revert("child says no"); }
    function failCustom() external pure { revert Custom(7); }
    function kill(address payable to) external { selfdestruct(to); }
}

contract Tracee {
    Child public child;
    uint256 public counter;
    event Ping(address indexed who, uint256 n);
    constructor() payable { child = new Child(); }
    function nested(uint256 v) external payable returns (uint256) {
        counter += 1;
        emit Ping(msg.sender, counter);
        uint256 r = child.set{value: msg.value}(v);
        (bool ok,) = address(child).call(abi.encodeWithSignature("fail()"));
        require(!ok, "fail() succeeded");
        (ok,) = address(child).staticcall(abi.encodeWithSignature("x()"));
        (ok,) = address(child).delegatecall(abi.encodeWithSignature("x()"));
        bytes32 h = sha256(abi.encode(v));
        return r + uint256(h) % 10;
    }
    function make(bytes32 salt) external returns (address) { Child c = new Child{salt: salt}(); return address(c); }
    function revertMe() external { counter = 99; revert("nope"); }
    function customRevert() external { child.failCustom(); }
    function killChild() external { child.kill(payable(msg.sender)); }
    function loop(uint256 n) external { for (uint256 i; i < n; i++) { counter += i; } }
    function many(uint256 n) external { for (uint256 i; i < n; i++) { child.set(i); } }
    // A CALL and a CREATE the EVM refuses before they start (value above the balance): geth shows both frames.
    function overspend() external returns (bool ok, address made) {
        (ok,) = address(child).call{value: address(this).balance + 1}(abi.encodeWithSignature("x()"));
        uint256 v = address(this).balance + 1;
        assembly { made := create(v, 0, 0) }
    }
}
`;

export interface Compiled {
  abi: unknown[];
  bytecode: `0x${string}`;
}

let cached: Record<string, Compiled> | undefined;

export function compileTraceContracts(): Record<string, Compiled> {
  if (cached) return cached;
  const input = {
    language: 'Solidity',
    sources: { 'Trace.sol': { content: TRACE_SOURCE } },
    settings: { evmVersion: 'shanghai', optimizer: { enabled: false }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  cached = Object.fromEntries(
    Object.entries(out.contracts['Trace.sol']).map(([name, c]) => [name, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as const }]),
  );
  return cached;
}
