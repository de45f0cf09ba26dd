import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Allowlist, checkOutboundUrl, classifyAddress } from '../../src/lib/net/address-policy.ts';

// Pure classification only: nothing here sends a packet anywhere.
describe('classifyAddress', () => {
  const nonPublic = [
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254', // AWS/GCP/Azure metadata
    '100.100.100.200', // Alibaba metadata (CGNAT range)
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1', // IPv4-mapped loopback
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address
    '2002:7f00:0001::', // 6to4 of loopback
    'fe80::1',
    'fd00:ec2::254', // AWS IPv6 metadata
    'fc00::1',
    'ff02::1',
    '[::1]',
    '::127.0.0.1', // IPv4-compatible
  ];
  for (const address of nonPublic) {
    it(`${address} is not public`, () => assert.equal(classifyAddress(address).public, false));
  }
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '203.0.114.1',
    '2606:4700:4700::1111',
    '[2001:4860:4860::8888]',
    '::ffff:8.8.8.8',
  ]) {
    it(`${address} is public`, () => assert.equal(classifyAddress(address).public, true));
  }
  it('treats anything unparseable as not public', () => {
    assert.equal(classifyAddress('example.com').public, false);
    assert.equal(classifyAddress('999.1.1.1').public, false);
  });
});

describe('checkOutboundUrl', () => {
  const none = new Allowlist([]);
  const sandbox = { requireHttps: false };
  const refused: [string, string][] = [
    ['http://127.0.0.1/hook', 'private_address'],
    ['http://2130706433/hook', 'private_address'], // decimal notation of 127.0.0.1
    ['http://0x7f.1/hook', 'private_address'], // hex short form
    ['http://0177.0.0.1/hook', 'private_address'], // octal
    ['http://[::ffff:127.0.0.1]/hook', 'private_address'],
    ['http://169.254.169.254/latest/meta-data', 'private_address'],
    ['http://localhost:3000/hook', 'private_address'],
    ['http://api.localhost/hook', 'private_address'],
    ['http://metadata.google.internal/', 'private_address'],
    ['http://intranet/hook', 'private_address'],
    ['ftp://example.com/hook', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['https://user:pw@example.com/hook', 'credentials_in_url'],
    ['https://example.com:22/hook', 'port_not_allowed'],
    ['not a url', 'invalid_url'],
  ];
  for (const [url, issue] of refused) {
    it(`refuses ${url} (${issue})`, () => {
      const check = checkOutboundUrl(url, none, sandbox);
      assert.equal(check.ok, false);
      if (!check.ok) assert.equal(check.issue, issue);
    });
  }
  it('accepts public https and http (sandbox) URLs on allowed ports', () => {
    for (const url of ['https://example.com/hook', 'http://shop.example.com:8080/cb', 'https://8.8.8.8/x']) {
      assert.equal(checkOutboundUrl(url, none, sandbox).ok, true, url);
    }
  });
  it('requires https in production', () => {
    const check = checkOutboundUrl('http://shop.example.com/cb', none, { requireHttps: true });
    assert.equal(check.ok ? 'ok' : check.issue, 'https_required');
  });
  it('opens allow-listed hosts and CIDRs, and only those', () => {
    const allow = new Allowlist(['127.0.0.1', 'dev.internal', '10.0.0.0/8']);
    assert.equal(checkOutboundUrl('http://127.0.0.1:4000/hook', allow, sandbox).ok, true);
    assert.equal(checkOutboundUrl('http://dev.internal/hook', allow, { requireHttps: true }).ok, true);
    assert.equal(checkOutboundUrl('http://10.9.8.7/hook', allow, sandbox).ok, true);
    assert.equal(checkOutboundUrl('http://127.0.0.2/hook', allow, sandbox).ok, false);
    assert.equal(checkOutboundUrl('http://192.168.0.1/hook', allow, sandbox).ok, false);
    assert.equal(allow.allowsAddress('::ffff:127.0.0.1'), true);
  });
});
