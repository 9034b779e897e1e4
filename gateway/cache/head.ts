/** The chain head as the gateway serves it: block numbers for the three tags. */
export interface HeadState {
  latest: number;
  safe: number;
  finalized: number;
}

/** A block header's identity, as newHeads or eth_getBlockByNumber give it. */
export interface BlockId {
  number: number;
  hash: string;
  parentHash: string;
}

/**
 * The head shared by every gateway instance. `advance` merges a candidate into the shared value by taking the
 * maximum of each tag and returns the result, so the head every instance serves never goes backwards (two instances
 * polling different upstreams otherwise answer `latest` with numbers that jump back and forth).
 */
export interface SharedHead {
  advance(candidate: HeadState): Promise<HeadState>;
}

/** The shared head for one instance. */
export class MemorySharedHead implements SharedHead {
  private state: HeadState = { latest: 0, safe: 0, finalized: 0 };

  async advance(c: HeadState): Promise<HeadState> {
    this.state = {
      latest: Math.max(this.state.latest, c.latest),
      safe: Math.max(this.state.safe, c.safe),
      finalized: Math.max(this.state.finalized, c.finalized),
    };
    return { ...this.state };
  }
}
