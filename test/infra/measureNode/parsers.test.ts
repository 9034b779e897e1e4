import { describe, expect, it } from 'vitest';
import { parseHeader } from '../../../infra/measureNode/cli.ts';
import { redactUrl } from '../../../infra/measureNode/measureNode.ts';
import { parseMethodSpec, presetMethods } from '../../../infra/measureNode/methods.ts';
import { nearestRank } from '../../../infra/measureNode/percentile.ts';
import { listeningInodes } from '../../../infra/measureNode/proc/findPid.ts';
import { parseIo, parseMemory } from '../../../infra/measureNode/proc/processStats.ts';
import { classifyTransport, interpretResponse } from '../../../infra/measureNode/rpcCall.ts';
import { parseSlowBlockLine, summarizeSlowBlockText } from '../../../infra/measureNode/slowBlocks.ts';

describe('nearestRank', () => {
  it('default: picks the value at rank ceil(p/100 * n), never interpolating', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => 20 - i); // 20..1, unsorted
    expect(nearestRank(twenty, 50)).toBe(10);
    expect(nearestRank(twenty, 95)).toBe(19);
    expect(nearestRank([5], 95)).toBe(5);
    expect(nearestRank([1, 2, 3], 50)).toBe(2);
    expect(nearestRank([], 50)).toBeNull();
  });
  it('error: rejects a percentile outside (0, 100]', () => {
    expect(() => nearestRank([1], 0)).toThrow(RangeError);
  });
});

describe('parseMethodSpec', () => {
  it('default: resolves preset ids, bare names and name=JSON params', () => {
    expect(parseMethodSpec('eth_getBlockByNumber:full')).toEqual(presetMethods()[3]);
    expect(parseMethodSpec('net_version')).toMatchObject({ method: 'net_version', params: [] });
    expect(parseMethodSpec('eth_getBalance', '0x' + '11'.repeat(20)).params).toEqual(['0x' + '11'.repeat(20), 'latest']);
    expect(parseMethodSpec('eth_call=[{"to":"0x01"},"latest"]')).toMatchObject({ method: 'eth_call', params: [{ to: '0x01' }, 'latest'] });
  });
  it('error: names the bad part', () => {
    expect(() => parseMethodSpec('eth_call=[oops')).toThrow(/params of eth_call are not JSON/);
    expect(() => parseMethodSpec('eth_call={"a":1}')).toThrow(/must be a JSON array/);
    expect(() => parseMethodSpec('bad name')).toThrow(/not a JSON-RPC method name/);
  });
});

describe('interpretResponse', () => {
  it('default: a 200 with a result is a success', () => {
    expect(interpretResponse(200, 'OK', '{"jsonrpc":"2.0","id":1,"result":"0x1"}', 1.5)).toEqual({ ok: true, ms: 1.5, result: '0x1' });
  });
  it('behavior: classifies rpc, http (keeping a body error code), invalid bodies and transport codes', () => {
    expect(interpretResponse(200, 'OK', '{"error":{"code":-32000,"message":"header not found"}}', 2)).toEqual({
      ok: false,
      failure: { ms: 2, kind: 'rpc', reason: 'rpc -32000', rpcCode: -32000, message: 'header not found' },
    });
    expect(interpretResponse(503, 'Service Unavailable', 'busy', 2)).toMatchObject({
      ok: false,
      failure: { kind: 'http', httpStatus: 503, message: 'Service Unavailable' },
    });
    expect(interpretResponse(200, 'OK', '{"id":1}', 2)).toMatchObject({
      ok: false,
      failure: { kind: 'invalid', reason: 'invalid response' },
    });
    expect(classifyTransport('ECONNRESET')).toBe('reset');
    expect(classifyTransport('ECONNREFUSED')).toBe('refused');
    expect(classifyTransport('EHOSTUNREACH')).toBe('other');
  });
});

describe('/proc parsers', () => {
  it('default: reads LISTEN inodes for a port from /proc/net/tcp', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0',
      '   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1',
    ].join('\n');
    expect(listeningInodes(table, 8080)).toEqual(['4242']);
    expect(listeningInodes(table, 8081)).toEqual([]);
  });
  it('default: converts status/smaps_rollup kB to bytes and reads io counters', () => {
    const status =
      'Name:\tnode\nVmHWM:\t  391700 kB\nVmRSS:\t   96000 kB\nRssAnon:\t   77600 kB\nRssFile:\t   18400 kB\nRssShmem:\t       0 kB\n';
    expect(parseMemory(status, 'Rss: 96000 kB\nPss: 90000 kB\nSwap: 0 kB\n')).toEqual({
      rssBytes: 96000 * 1024,
      rssAnonBytes: 77600 * 1024,
      rssFileBytes: 18400 * 1024,
      rssShmemBytes: 0,
      vmHwmBytes: 391700 * 1024,
      pssBytes: 90000 * 1024,
      swapBytes: 0,
    });
    expect(parseMemory(status, null).pssBytes).toBeNull();
    expect(parseIo('rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 30\nwrite_bytes: 40\ncancelled_write_bytes: 5\n')).toEqual({
      rchar: 10,
      wchar: 20,
      readBytes: 30,
      writeBytes: 40,
      cancelledWriteBytes: 5,
    });
  });
});

describe('slow-block lines', () => {
  const line =
    'WARN [11-15|10:00:00.000] {"msg":"Slow block","block":{"number":"852064","hash":"0x01","gas_used":42000,"tx_count":2},"timing":{"execution_ms":3,"state_read_ms":1,"state_hash_ms":2,"commit_ms":4,"total_ms":10,"recovery_ms":0.7},"throughput":{"mgas_per_sec":4.2}}';
  it('default: parses the geth shape after a text prefix, recovery_ms inside timing or at top level', () => {
    expect(parseSlowBlockLine(line)).toEqual({
      number: 852064,
      gasUsed: 42000,
      txCount: 2,
      timings: { execution_ms: 3, state_read_ms: 1, state_hash_ms: 2, commit_ms: 4, total_ms: 10, recovery_ms: 0.7, mgas_per_sec: 4.2 },
    });
    expect(parseSlowBlockLine('{"msg":"Slow block","timing":{}}')).toBeNull();
  });
  it('behavior: a summary counts unparsed slow-block lines and ignores other lines', () => {
    const s = summarizeSlowBlockText([line, 'INFO Imported new chain segment', 'Slow block: {broken', ''].join('\n'));
    expect(s).toMatchObject({ lines: 1, unparsed: 1, firstBlock: 852064, lastBlock: 852064, gasUsed: 42000, txCount: 2 });
  });
});

describe('CLI helpers', () => {
  it('default: parses headers and redacts URL credentials and query values', () => {
    expect(parseHeader('Authorization: Bearer a:b')).toEqual(['Authorization', 'Bearer a:b']);
    expect(() => parseHeader('no colon')).toThrow(/Name: value/);
    expect(redactUrl('https://user:pw@gw.example/v1?key=secret')).toBe('https://redacted@gw.example/v1?key=redacted');
  });
});
