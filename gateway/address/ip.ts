import {
  convertIPv4ToBinary,
  convertIPv6ToBinary,
  convertIPv6BinaryToString,
  distinctRemoteAddr,
  isIPv4MappedIPv6,
  convertIPv4MappedIPv6ToIPv4,
  convertIPv4BinaryToString,
} from 'hono/utils/ipaddr';

/** A parsed address: family and its value as a bigint (32 or 128 bits). */
export interface IpAddr {
  family: 4 | 6;
  value: bigint;
}

/** A CIDR block. */
export interface Cidr {
  family: 4 | 6;
  base: bigint;
  bits: number;
}

/** Addresses seen lately, parsed (most traffic comes from few peers: a proxy, a load balancer). */
const parsed = new Map<string, IpAddr | undefined>();
const PARSED_MAX = 4_096;

/**
 * Parses an IPv4 or IPv6 literal (IPv4-mapped IPv6 becomes IPv4); undefined when it is not an address. Results are
 * memoised (bounded; the map is dropped when full): parsing to a bigint showed in the per-request profile.
 */
export function parseIp(text: string): IpAddr | undefined {
  const known = parsed.get(text);
  if (known !== undefined || parsed.has(text)) return known;
  const ip = parseIpUncached(text);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(text, ip);
  return ip;
}

function parseIpUncached(text: string): IpAddr | undefined {
  const s = text.trim().replace(/^\[|\]$/g, '');
  try {
    const kind = distinctRemoteAddr(s);
    if (kind === 'IPv4') return { family: 4, value: convertIPv4ToBinary(s) };
    if (kind === 'IPv6') {
      const v = convertIPv6ToBinary(s);
      return isIPv4MappedIPv6(v) ? { family: 4, value: convertIPv4MappedIPv6ToIPv4(v) } : { family: 6, value: v };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Parses `a.b.c.d/n`, `x::/n` or a bare address (a /32 or /128); undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const [addr, bitsText] = text.split('/');
  const ip = parseIp(addr ?? '');
  if (!ip) return undefined;
  const width = ip.family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? width : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > width) return undefined;
  return { family: ip.family, base: ip.value & mask(ip.family, bits), bits };
}

function mask(family: 4 | 6, bits: number): bigint {
  const width = family === 4 ? 32n : 128n;
  return bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << (width - BigInt(bits));
}

/** True when `ip` lies inside `cidr`. */
export function cidrContains(cidr: Cidr, ip: IpAddr): boolean {
  return cidr.family === ip.family && (ip.value & mask(ip.family, cidr.bits)) === cidr.base;
}

interface IpNames {
  bucket?: string;
  log?: string;
}

/** Bucket and log names per parsed address (the memoised objects from parseIp are reused request after request). */
const named = new WeakMap<IpAddr, IpNames>();

/** The rate-limit bucket of an address: IPv4 as is, IPv6 by its /64 (one subscriber's allocation), so rotating inside it does not help. */
export function ipBucket(ip: IpAddr): string {
  let names = named.get(ip);
  if (!names) named.set(ip, (names = {}));
  return (names.bucket ??=
    ip.family === 4 ? convertIPv4BinaryToString(ip.value) : `${convertIPv6BinaryToString(ip.value & mask(6, 64))}/64`);
}

/** A truncated address for logs: IPv4 /24, IPv6 /48. */
export function ipForLog(ip: IpAddr): string {
  let names = named.get(ip);
  if (!names) named.set(ip, (names = {}));
  return (names.log ??=
    ip.family === 4
      ? `${convertIPv4BinaryToString(ip.value & mask(4, 24))}/24`
      : `${convertIPv6BinaryToString(ip.value & mask(6, 48))}/48`);
}
