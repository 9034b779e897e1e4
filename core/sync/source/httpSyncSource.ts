/**
 * A SyncSource over the `/xone/v1/` HTTP protocol (docs/sync.md). Every request has a deadline covering headers and
 * body, every body a byte bound, and every `/status` answer is checked against our chain (genesis hash and chain
 * id): a peer on another chain is refused with SYNC_PEER_WRONG_CHAIN before any block is asked for.
 */
import { bytesToHex, equalBytes, hexToFixedBytes } from '../../primitives/hex.ts';
import { splitRlpStream } from '../../primitives/rlp.ts';
import { SyncError } from '../errors.ts';
import { HEADS_KEEPALIVE_MS, MAX_BLOCKS_PER_REQUEST, MAX_BLOCKS_RESPONSE_BYTES, MAX_JSON_RESPONSE_BYTES } from '../options.ts';
import { parseHead, parseStatus, type SyncHead, type SyncStatus } from '../wire.ts';
import type { HeadSubscription, SyncSource } from './interface.ts';
import { readLimited } from './readLimited.ts';
import { readSse } from './sseReader.ts';

/** Options of one HTTP peer. */
export interface HttpSyncSourceOptions {
  /** The peer's base URL (its RPC port), e.g. `http://10.0.0.2:8545`; `/xone/v1/...` is appended. */
  url: string;
  /** Our chain: a peer reporting anything else is refused. */
  genesisHash: Uint8Array;
  chainId: bigint;
  statusTimeoutMs?: number;
  blocksTimeoutMs?: number;
  maxBlocksBytes?: number;
  /** Silence on `/heads` longer than this ends the stream (default 3 keep-alive intervals). */
  headsIdleMs?: number;
}

/** HTTP implementation of SyncSource. */
export class HttpSyncSource implements SyncSource {
  readonly id: string;
  private readonly base: string;
  private readonly o: Required<Omit<HttpSyncSourceOptions, 'url' | 'genesisHash' | 'chainId'>>;

  constructor(private readonly options: HttpSyncSourceOptions) {
    this.base = options.url.replace(/\/+$/, '') + '/xone/v1';
    this.id = options.url;
    this.o = {
      statusTimeoutMs: options.statusTimeoutMs ?? 5_000,
      blocksTimeoutMs: options.blocksTimeoutMs ?? 20_000,
      maxBlocksBytes: options.maxBlocksBytes ?? MAX_BLOCKS_RESPONSE_BYTES,
      headsIdleMs: options.headsIdleMs ?? 3 * HEADS_KEEPALIVE_MS,
    };
  }

  async status(): Promise<SyncStatus> {
    const json = await this.request('status', '/status', this.o.statusTimeoutMs, MAX_JSON_RESPONSE_BYTES, (bytes) =>
      JSON.parse(new TextDecoder().decode(bytes)),
    );
    const status = parseStatus(json, this.id);
    if (!equalBytes(status.genesisHash, this.options.genesisHash) || status.chainId !== this.options.chainId) {
      throw new SyncError(
        'SYNC_PEER_WRONG_CHAIN',
        `peer ${this.id} is on another chain: genesis ${bytesToHex(status.genesisHash)} chain id ${status.chainId}, ours ${bytesToHex(this.options.genesisHash)} chain id ${this.options.chainId}`,
        { peer: this.id, genesisHash: bytesToHex(status.genesisHash), chainId: status.chainId.toString() },
      );
    }
    return status;
  }

  /**
   * The deadline of a `/blocks` request grows with the range asked for: from the status deadline for one block to
   * the blocks deadline for a full range. A follower at the head asks for one or two blocks at a time; a peer cut off
   * (a partition holds the connection open and answers nothing) then costs it seconds, not the full-range deadline,
   * before it turns to a peer that answers.
   */
  blocksDeadlineMs(count: number): number {
    const { statusTimeoutMs: short, blocksTimeoutMs: long } = this.o;
    if (long <= short) return long;
    return Math.round(short + ((long - short) * Math.min(count, MAX_BLOCKS_PER_REQUEST)) / MAX_BLOCKS_PER_REQUEST);
  }

  async blocks(from: bigint, count: number): Promise<Uint8Array[]> {
    return this.request(
      'blocks',
      `/blocks?from=${from}&count=${count}`,
      this.blocksDeadlineMs(count),
      this.o.maxBlocksBytes,
      (bytes, headers) => {
        // The count header makes a cut anywhere detectable, not only one that leaves the last item short.
        const declared = Number(headers.get('x-xone-count'));
        let blocks: Uint8Array[] | undefined;
        let why = '';
        try {
          blocks = splitRlpStream(bytes);
          if (blocks.length !== declared) why = `${blocks.length} RLP items where x-xone-count says ${headers.get('x-xone-count')}`;
        } catch (err) {
          why = (err as Error).message;
        }
        if (!blocks || why)
          throw new SyncError(
            'SYNC_PEER_BAD_RESPONSE',
            `peer ${this.id}: truncated or malformed block data (${bytes.length} bytes): ${why}`,
            { peer: this.id, bytes: bytes.length },
          );
        if (blocks.length > count)
          throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${this.id}: sent ${blocks.length} blocks, asked for ${count}`, {
            peer: this.id,
          });
        return blocks;
      },
    );
  }

  heads(onHead: (head: SyncHead) => void, onEnd: (err?: Error) => void): HeadSubscription {
    const ctl = new AbortController();
    let closed = false;
    const run = async (): Promise<void> => {
      // The connect deadline guards only until the headers arrive: a fetch signal also governs the body, so a timeout
      // signal given to fetch would cut the long-lived stream after statusTimeoutMs (it did: every 5 s).
      const ms = this.o.statusTimeoutMs;
      const connect = setTimeout(
        () => ctl.abort(new SyncError('SYNC_PEER_TIMEOUT', `peer ${this.id}: /heads did not answer within ${ms} ms`, { peer: this.id })),
        ms,
      );
      let res: Response;
      try {
        res = await fetch(this.base + '/heads', { signal: ctl.signal, headers: { accept: 'text/event-stream' } });
      } finally {
        clearTimeout(connect);
      }
      if (!res.ok || !res.body)
        throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${this.id}: /heads answered HTTP ${res.status}`, { peer: this.id });
      await readSse(
        res.body,
        (e) => {
          if (e.event === 'head') onHead(parseHead(JSON.parse(e.data), this.id));
        },
        { idleMs: this.o.headsIdleMs, maxEventBytes: 4096 },
      );
    };
    run().then(
      () => onEnd(),
      (err: Error) => onEnd(closed ? undefined : err),
    );
    return {
      close: () => {
        closed = true;
        ctl.abort();
      },
    };
  }

  async submitTx(raw: Uint8Array): Promise<Uint8Array> {
    const json = (await this.request(
      'tx',
      '/tx',
      this.o.statusTimeoutMs,
      MAX_JSON_RESPONSE_BYTES,
      (bytes) => JSON.parse(new TextDecoder().decode(bytes)),
      { method: 'POST', body: raw, headers: { 'content-type': 'application/octet-stream' } },
      true,
    )) as { hash?: unknown; error?: { message?: unknown } };
    if (json.error) throw new SyncError('SYNC_TX_REFUSED', String(json.error.message ?? 'refused'), { peer: this.id });
    if (typeof json.hash !== 'string')
      throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${this.id}: malformed /tx answer`, { peer: this.id });
    return hexToFixedBytes(json.hash, 32, 'tx hash');
  }

  /** One bounded request: deadline on headers and body together, byte bound on the body, errors typed. */
  private async request<T>(
    what: string,
    path: string,
    timeoutMs: number,
    maxBytes: number,
    parse: (bytes: Uint8Array, headers: Headers) => T,
    init: RequestInit = {},
    acceptClientError = false,
  ): Promise<T> {
    const signal = AbortSignal.timeout(timeoutMs);
    let bytes: Uint8Array;
    let headers: Headers;
    try {
      const res = await fetch(this.base + path, { ...init, signal });
      if (!res.ok && !(acceptClientError && res.status >= 400 && res.status < 500)) {
        await res.body?.cancel();
        throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${this.id}: ${what} answered HTTP ${res.status}`, {
          peer: this.id,
          status: res.status,
        });
      }
      headers = res.headers;
      bytes = await readLimited(res, maxBytes, this.id);
    } catch (err) {
      if (err instanceof SyncError) throw err;
      if (signal.aborted)
        throw new SyncError('SYNC_PEER_TIMEOUT', `peer ${this.id}: no complete ${what} answer within ${timeoutMs} ms`, {
          peer: this.id,
          what,
          timeoutMs,
        });
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new SyncError('SYNC_PEER_UNREACHABLE', `peer ${this.id}: ${what} request failed: ${cause}`, { peer: this.id, cause });
    }
    try {
      return parse(bytes, headers);
    } catch (err) {
      if (err instanceof SyncError) throw err;
      throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${this.id}: malformed ${what} answer: ${(err as Error).message}`, {
        peer: this.id,
      });
    }
  }
}
