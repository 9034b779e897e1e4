import { MeasureNodeError } from './errors.ts';

/** One method series to measure: what to call and how to label it in reports. */
export interface MethodSpec {
  /** Unique id used on the command line (`--methods`), e.g. `eth_getBlockByNumber:full`. */
  id: string;
  /** Label in the reports, shaped like the seed's table rows. */
  label: string;
  method: string;
  params: unknown[];
}

/** The address eth_getBalance asks about unless `--address` says otherwise. */
export const DEFAULT_BALANCE_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The seed's table, in its order: the default set. `address` fills eth_getBalance. */
export function presetMethods(address: string = DEFAULT_BALANCE_ADDRESS): MethodSpec[] {
  return [
    { id: 'eth_blockNumber', label: 'eth_blockNumber', method: 'eth_blockNumber', params: [] },
    { id: 'eth_chainId', label: 'eth_chainId', method: 'eth_chainId', params: [] },
    { id: 'eth_getBlockByNumber', label: 'eth_getBlockByNumber', method: 'eth_getBlockByNumber', params: ['latest', false] },
    { id: 'eth_getBlockByNumber:full', label: 'eth_getBlockByNumber full', method: 'eth_getBlockByNumber', params: ['latest', true] },
    { id: 'eth_getBlockReceipts', label: 'eth_getBlockReceipts', method: 'eth_getBlockReceipts', params: ['latest'] },
    { id: 'eth_getBalance', label: 'eth_getBalance', method: 'eth_getBalance', params: [address, 'latest'] },
    { id: 'eth_gasPrice', label: 'eth_gasPrice', method: 'eth_gasPrice', params: [] },
  ];
}

/**
 * Resolves one `--methods` entry or `--method` spec. An entry is a preset id (`eth_getBlockByNumber:full`), or a
 * custom call `name=JSON-params` (`eth_call=[{"to":"0x…"},"latest"]`), or a bare method name called without params.
 */
export function parseMethodSpec(spec: string, address: string = DEFAULT_BALANCE_ADDRESS): MethodSpec {
  const text = spec.trim();
  if (text === '') throw new MeasureNodeError('BAD_METHOD_SPEC', 'empty method spec', { spec });
  const preset = presetMethods(address).find((m) => m.id === text);
  if (preset) return preset;
  const eq = text.indexOf('=');
  const name = eq < 0 ? text : text.slice(0, eq).trim();
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) {
    throw new MeasureNodeError('BAD_METHOD_SPEC', `method name ${JSON.stringify(name)} is not a JSON-RPC method name`, { spec });
  }
  if (eq < 0) return { id: name, label: name, method: name, params: [] };
  const raw = text.slice(eq + 1);
  let params: unknown;
  try {
    params = JSON.parse(raw);
  } catch (err) {
    throw new MeasureNodeError('BAD_METHOD_SPEC', `params of ${name} are not JSON: ${(err as Error).message}`, { spec });
  }
  if (!Array.isArray(params)) throw new MeasureNodeError('BAD_METHOD_SPEC', `params of ${name} must be a JSON array`, { spec });
  return { id: text, label: `${name} ${raw}`, method: name, params };
}
