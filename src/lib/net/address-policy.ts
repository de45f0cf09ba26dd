import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Where Tributary may send webhooks and callbacks. A URL is checked when it is saved (scheme,
 * port, credentials, literal addresses, reserved names) and, at delivery, every address the name
 * resolves to is checked again with `classifyAddress` before connecting (see issue 4). Private,
 * loopback, link-local, metadata and other non-public ranges are refused unless the operator
 * allow-lists a host or CIDR (WEBHOOK_ALLOWLIST, for local development and tests).
 *
 * Pure functions only: tests prove refusals here, never by sending traffic anywhere.
 */

const NON_PUBLIC_V4: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (also cloud metadata on some providers)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const NON_PUBLIC_V6: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['100::', 64, 'discard'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (cloud metadata on some providers)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

function blockList(entries: readonly [string, number, string][], type: 'ipv4' | 'ipv6') {
  return entries.map(([net, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, type);
    return { list, reason };
  });
}
const V4 = blockList(NON_PUBLIC_V4, 'ipv4');
const V6 = blockList(NON_PUBLIC_V6, 'ipv6');

export type AddressClass = { public: true } | { public: false; reason: string };

/** Expands an IPv6 text to its 8 groups (handles `::` and a trailing dotted IPv4). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const parts = dotted[1].split('.').map(Number);
    const hi = ((parts[0] ?? 0) << 8) | (parts[1] ?? 0);
    const lo = ((parts[2] ?? 0) << 8) | (parts[3] ?? 0);
    text = `${text.slice(0, dotted.index)}${hi.toString(16)}:${lo.toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : (halves[0] ?? '').split(':');
  const tail = halves.length === 2 ? (halves[1] === '' ? [] : (halves[1] ?? '').split(':')) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(Math.max(fill, 0)).fill('0'), ...tail].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address stands for, where it embeds one that a router would reach:
 * IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIPv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return v4FromGroups(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4FromGroups(g6, g7);
  if (g0 === 0x2002) return v4FromGroups(g1, g2);
  return undefined;
}

/** Classifies one IP address (v4 or v6 text, brackets allowed). Anything unparseable is not public. */
export function classifyAddress(raw: string): AddressClass {
  const address = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (isIPv4(address)) {
    for (const { list, reason } of V4) if (list.check(address, 'ipv4')) return { public: false, reason };
    if (address === '255.255.255.255') return { public: false, reason: 'broadcast' };
    return { public: true };
  }
  if (isIPv6(address)) {
    const groups = ipv6Groups(address);
    if (groups === undefined) return { public: false, reason: 'unparseable IPv6 address' };
    const v4 = embeddedIPv4(groups);
    if (v4 !== undefined) {
      const inner = classifyAddress(v4);
      return inner.public ? inner : { public: false, reason: `${inner.reason} (embedded in IPv6)` };
    }
    const normalized = groups.map((g) => g.toString(16)).join(':');
    for (const { list, reason } of V6) if (list.check(normalized, 'ipv6')) return { public: false, reason };
    return { public: true };
  }
  return { public: false, reason: 'not an IP address' };
}

/** Operator allow-list entries: host names (exact, case-insensitive), IP addresses, or CIDRs. */
export class Allowlist {
  readonly #hosts = new Set<string>();
  readonly #nets = new BlockList();
  readonly #empty: boolean;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [net, prefixText] = entry.split('/');
      const prefix = prefixText === undefined ? undefined : Number(prefixText);
      if (net !== undefined && isIPv4(net)) this.#nets.addSubnet(net, prefix ?? 32, 'ipv4');
      else if (net !== undefined && isIPv6(net)) this.#nets.addSubnet(net, prefix ?? 128, 'ipv6');
      else this.#hosts.add(entry.toLowerCase());
    }
    this.#empty = entries.length === 0;
  }

  allowsHost(hostname: string): boolean {
    return !this.#empty && this.#hosts.has(hostname.toLowerCase());
  }

  allowsAddress(address: string): boolean {
    if (this.#empty) return false;
    const bare = address.startsWith('[') ? address.slice(1, -1) : address;
    if (isIPv4(bare)) return this.#nets.check(bare, 'ipv4');
    if (isIPv6(bare)) {
      const groups = ipv6Groups(bare);
      const v4 = groups === undefined ? undefined : embeddedIPv4(groups);
      return this.#nets.check(bare, 'ipv6') || (v4 !== undefined && this.#nets.check(v4, 'ipv4'));
    }
    return false;
  }
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; issue: string; message: string };

const RESERVED_NAME = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$|^metadata(\.|$)/i;
export const MAX_URL_LENGTH = 2048;
/**
 * What a developer registering http://127.0.0.1:3000/hook needs to read next: the refusal is on
 * purpose (SSRF), and these are the two ways to receive events on one's own machine.
 */
const PRIVATE_HINT =
  '. For local development, the server operator can allow it with WEBHOOK_ALLOWLIST (e.g. WEBHOOK_ALLOWLIST=127.0.0.1), ' +
  'or run `tributary listen --forward-to http://127.0.0.1:PORT/PATH` to receive events without an endpoint (docs/cli.md)';

/**
 * Save-time rules for webhook and callback URLs. `requireHttps` is set for production: payment
 * events carry personal data and must not travel in clear text.
 */
export function checkOutboundUrl(raw: string, allowlist: Allowlist, options: { requireHttps: boolean }): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, issue: 'too_long', message: `at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, issue: 'invalid_url', message: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, issue: 'unsupported_scheme', message: 'must use https (or http in sandbox)' };
  }
  // WHATWG parsing has already normalised IPv4 in any notation (0x7f.1, 2130706433) to dotted form.
  const host = url.hostname;
  const allowed = allowlist.allowsHost(host) || allowlist.allowsAddress(host);
  if (options.requireHttps && url.protocol !== 'https:' && !allowed) {
    return { ok: false, issue: 'https_required', message: 'production URLs must use https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, issue: 'credentials_in_url', message: 'must not contain a user name or password' };
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!allowed && port !== 80 && port !== 443 && port < 1024) {
    return { ok: false, issue: 'port_not_allowed', message: 'port must be 80, 443 or 1024-65535' };
  }
  if (allowed) return { ok: true, url };
  const isLiteral = isIPv4(host) || (host.startsWith('[') && host.endsWith(']'));
  if (isLiteral) {
    const cls = classifyAddress(host);
    if (!cls.public) return { ok: false, issue: 'private_address', message: `address not allowed: ${cls.reason}${PRIVATE_HINT}` };
    return { ok: true, url };
  }
  if (RESERVED_NAME.test(host) || !host.includes('.')) {
    return { ok: false, issue: 'private_address', message: `host name is local or reserved${PRIVATE_HINT}` };
  }
  return { ok: true, url };
}
