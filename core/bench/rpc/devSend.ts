/** A transaction from the dev chain's first account, sent with eth_sendTransaction and waited for (bench setup). */
import { must } from './client.ts';

export const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const FEES = { maxFeePerGas: '0x2540be400', maxPriorityFeePerGas: '0x3b9aca00' };

/** Sends `tx` from DEV0 on `url` and answers its receipt once mined. */
export async function minedFromDev0(url: string, tx: Record<string, unknown>): Promise<Record<string, string>> {
  const hash = await must(url, 'eth_sendTransaction', [{ from: DEV0, ...FEES, ...tx }]);
  for (;;) {
    const r = (await must(url, 'eth_getTransactionReceipt', [hash])) as Record<string, string> | null;
    if (r) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
}
