/**
 * Turns block selectors into headers. Tags resolve against the in-memory head (pending = latest: the node keeps no
 * pending block), safe/finalized against the chain's PoA definition. State reads need an existing header and get
 * geth's "header not found" errors (-32000) otherwise.
 */
import { type BlockSelector } from './blockParams.ts';
import { type HeaderData } from './encode/types.ts';
import { type ChainView } from './interface.ts';
import { RpcError } from './errors.ts';
import { equalBytes } from '../primitives/hex.ts';

export class BlockResolver {
  constructor(private readonly chain: ChainView) {}

  /** Block number a tag or number names (numbers past the head stay as given). */
  number(sel: BlockSelector): bigint | null {
    if ('number' in sel) return sel.number;
    if ('hash' in sel) return null;
    switch (sel.tag) {
      case 'earliest':
        return 0n;
      case 'safe':
        return this.chain.safeNumber();
      case 'finalized':
        return this.chain.finalizedNumber();
      default:
        return this.chain.head().number;
    }
  }

  /** Canonical header by number; the head comes from memory. */
  async byNumber(n: bigint): Promise<HeaderData | null> {
    const head = this.chain.head();
    if (n === head.number) return head;
    if (n > head.number || n < 0n) return null;
    return this.chain.getHeaderByNumber(n);
  }

  /** The header a selector names, or null (canonicality checked when required). */
  async header(sel: BlockSelector): Promise<HeaderData | null> {
    if ('hash' in sel) {
      const h = await this.chain.getHeaderByHash(sel.hash);
      if (h === null || !sel.requireCanonical) return h;
      const canonical = await this.byNumber(h.number);
      return canonical && equalBytes(canonical.hash, h.hash) ? h : null;
    }
    const n = this.number(sel);
    return n === null ? null : this.byNumber(n);
  }

  /** The header for a state read; geth's errors when missing. */
  async stateHeader(sel: BlockSelector): Promise<HeaderData> {
    if ('hash' in sel) {
      const h = await this.chain.getHeaderByHash(sel.hash);
      if (h === null) throw new RpcError('SERVER_ERROR', 'header for hash not found');
      if (sel.requireCanonical) {
        const canonical = await this.byNumber(h.number);
        if (!canonical || !equalBytes(canonical.hash, h.hash)) throw new RpcError('SERVER_ERROR', 'hash is not currently canonical');
      }
      return h;
    }
    const h = await this.header(sel);
    if (h === null) throw new RpcError('SERVER_ERROR', 'header not found');
    return h;
  }
}
