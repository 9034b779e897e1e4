/**
 * Node-held accounts: eth_accounts, eth_sendTransaction, eth_signTransaction, eth_sign, personal_sign and
 * eth_signTypedData_v4. On --dev the dev accounts (and impersonated addresses, for sending) answer them as anvil's do;
 * elsewhere the node holds no keys: eth_accounts is [] and the others refuse with geth's "unknown account" and why.
 */
import { callRequest } from '../callParams.ts';
import { address, data, optional, required, string } from '../params.ts';
import { type MethodTable, method } from '../registry.ts';
import { type RpcServices } from '../services.ts';
import { RpcError } from '../errors.ts';
import { bytesToHex } from '../../primitives/hex.ts';

/** eth_signTypedData_v4 takes the typed data as an object or as its JSON text (MetaMask sends text). */
function typedData(v: unknown): unknown {
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      throw new RpcError('INVALID_PARAMS', 'invalid argument 1: typed data is not valid JSON');
    }
  }
  if (v === null || typeof v !== 'object') throw new RpcError('INVALID_PARAMS', 'invalid argument 1: typed data must be an object');
  return v;
}

const noKeys = (who?: Uint8Array): never => {
  throw new RpcError(
    'SERVER_ERROR',
    `unknown account${who ? ` ${bytesToHex(who)}` : ''}: this node holds no keys (node-held accounts exist only with --dev); sign locally and use eth_sendRawTransaction`,
  );
};

export function accountMethods(s: RpcServices): MethodTable {
  const accounts = s.deps.accounts;
  if (!accounts) {
    return {
      eth_accounts: method([], () => []),
      eth_sendTransaction: method([required(callRequest)] as const, ([req]) => noKeys(req.from)),
      eth_signTransaction: method([required(callRequest)] as const, ([req]) => noKeys(req.from)),
      eth_sign: method([required(address), required(data)] as const, ([a]) => noKeys(a)),
      personal_sign: method([required(data), required(address), optional(string)] as const, ([, a]) => noKeys(a)),
      eth_signTypedData_v4: method([required(address), required(typedData)] as const, ([a]) => noKeys(a)),
    };
  }
  const sendUnsigned = accounts.sendUnsignedTransaction?.bind(accounts);
  return {
    ...(sendUnsigned
      ? {
          eth_sendUnsignedTransaction: method([required(callRequest)] as const, async ([req]) => bytesToHex(await sendUnsigned(req))),
        }
      : {}),
    eth_accounts: method([], () => accounts.accounts().map(bytesToHex)),
    eth_sendTransaction: method([required(callRequest)] as const, async ([req]) => bytesToHex(await accounts.sendTransaction(req))),
    eth_signTransaction: method([required(callRequest)] as const, async ([req]) => bytesToHex(await accounts.signTransaction(req))),
    eth_sign: method([required(address), required(data)] as const, async ([a, msg]) => bytesToHex(await accounts.signMessage(a, msg))),
    personal_sign: method([required(data), required(address), optional(string)] as const, async ([msg, a]) =>
      bytesToHex(await accounts.signMessage(a, msg)),
    ),
    eth_signTypedData_v4: method([required(address), required(typedData)] as const, async ([a, td]) =>
      bytesToHex(await accounts.signTypedData(a, td)),
    ),
  };
}
