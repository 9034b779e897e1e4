import type { Outgoing } from './protocol.ts';

/** The part of a WebSocket the queue writes to. */
export interface FrameSink {
  send(text: string, done: (err?: Error) => void): void;
}

/**
 * The one writer of a connection: frames go out one at a time, each after the previous one was handed to the socket,
 * so no two writers interleave and a slow socket backs the queue up instead of the heap. The queue is bounded:
 * `block`, `pending` and `stats` are coalesced (a newer one replaces a queued older one: only the latest head
 * matters), and past `limit` the oldest non-heartbeat frame is dropped and counted.
 */
export class SendQueue {
  private readonly queue: Outgoing[] = [];
  private writing = false;
  /** Frames dropped because the queue was full. */
  dropped = 0;

  constructor(
    private readonly sink: FrameSink,
    private readonly limit: number,
    private readonly onError: (err: Error) => void,
  ) {}

  push(message: Outgoing): void {
    if (message.kind === 'block' || message.kind === 'pending' || message.kind === 'stats') {
      const i = this.queue.findIndex((m) => m.kind === message.kind);
      if (i >= 0) {
        this.queue[i] = message;
        return;
      }
    }
    // Heartbeat replies jump the queue: a pong stuck behind reports is what gets a connection killed.
    if (message.kind === 'pong') this.queue.unshift(message);
    else this.queue.push(message);
    while (this.queue.length > this.limit) {
      const i = this.queue.findIndex((m) => m.kind !== 'pong');
      this.queue.splice(i < 0 ? 0 : i, 1);
      this.dropped++;
    }
    this.drain();
  }

  get length(): number {
    return this.queue.length;
  }

  private drain(): void {
    if (this.writing) return;
    const next = this.queue.shift();
    if (!next) return;
    this.writing = true;
    this.sink.send(next.text, (err) => {
      this.writing = false;
      if (err) this.onError(err);
      else this.drain();
    });
  }
}
