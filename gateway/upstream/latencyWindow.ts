/**
 * The latest answer times of one upstream, for hedging: a ring of the last `size` successful request durations and
 * a quantile over them, re-sorted at most every `refreshEvery` observations (a hedge decision reads it per call), and
 * only when a quantile is read: every forwarded call observes, and with hedging off (the default) nothing reads.
 */
export class LatencyWindow {
  private readonly ring: number[] = [];
  private next = 0;
  private sorted: number[] = [];
  private sinceSort = 0;

  constructor(
    private readonly size = 256,
    private readonly refreshEvery = 16,
  ) {}

  observe(ms: number): void {
    if (this.ring.length < this.size) this.ring.push(ms);
    else this.ring[this.next] = ms;
    this.next = (this.next + 1) % this.size;
    this.sinceSort++;
  }

  get count(): number {
    return this.ring.length;
  }

  /** The q-quantile (0 < q < 1) of the kept durations, or undefined with fewer than `minSamples` of them. */
  quantile(q: number, minSamples: number): number | undefined {
    if (this.ring.length < Math.max(1, minSamples)) return undefined;
    if (this.sinceSort >= this.refreshEvery || this.sorted.length < this.refreshEvery || this.sorted.length !== this.ring.length) {
      this.resort();
    }
    return this.sorted[Math.min(this.sorted.length - 1, Math.floor(q * this.sorted.length))];
  }

  private resort(): void {
    this.sorted = [...this.ring].sort((a, b) => a - b);
    this.sinceSort = 0;
  }
}
