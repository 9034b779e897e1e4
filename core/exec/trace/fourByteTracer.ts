/**
 * geth's 4byteTracer (eth/tracers/native/4byte.go): for every call with at least 4 bytes of input (not to a
 * precompile), `"0x<selector>-<input size - 4>": count`.
 */
import { bytesToHex } from '../../primitives/hex.ts';
import type { FrameEnter, TraceHooks } from './hooks.ts';

export class FourByteTracer {
  private readonly ids = new Map<string, number>();

  constructor(private readonly isPrecompile: (address: Uint8Array) => boolean) {}

  readonly hooks: TraceHooks = {
    onEnter: (f: FrameEnter) => {
      if (f.type === 'CREATE' || f.type === 'CREATE2' || f.type === 'SELFDESTRUCT' || f.input.length < 4) return;
      if (f.to !== undefined && this.isPrecompile(f.to)) return;
      const id = `${bytesToHex(f.input.subarray(0, 4))}-${f.input.length - 4}`;
      this.ids.set(id, (this.ids.get(id) ?? 0) + 1);
    },
  };

  result(): Record<string, number> {
    return Object.fromEntries(this.ids);
  }
}
