// The outbound guard (CONTRACT.md "Outbound requests"): the classifier refuses every
// non-public range without sending a packet, URL forms that hide a loopback address are
// caught, and the allowlist opens exactly what it names.
import { describe, expect, it } from 'vitest';
import {
  isAllowedAddress,
  isPublicAddress,
  parseAllowlist,
} from '../../core/outbound/addresses.ts';
import { checkUrlForm, OutboundRefused, resolveChecked } from '../../core/outbound/guard.ts';

describe('the address classifier', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network 0/8'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.18.0.1', 'benchmarking'],
    ['240.0.0.1', 'reserved 240/4'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fc00::1', 'IPv6 unique local'],
    ['fd12:3456::1', 'IPv6 unique local fd'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['::7f00:1', 'IPv4-compatible 127.0.0.1'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['::a9fe:a9fe', 'IPv4-compatible 169.254.169.254'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:db8::1', 'documentation'],
    ['not-an-ip', 'garbage'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
    expect(isAllowedAddress(ip, [])).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::808:808',
  ])('accepts the public address %s', (ip) => expect(isPublicAddress(ip)).toBe(true));

  it('opens exactly the allowlisted ranges', () => {
    const allow = parseAllowlist(['127.0.0.0/8', '::1/128']);
    expect(isAllowedAddress('127.0.0.1', allow)).toBe(true);
    expect(isAllowedAddress('::ffff:127.0.0.1', allow)).toBe(true);
    expect(isAllowedAddress('::1', allow)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', allow)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', allow)).toBe(false);
  });
});

describe('URLs', () => {
  const strict = { allowlist: [], allowHttp: false };
  const http = { allowlist: [], allowHttp: true };

  it('needs https unless http is allowed, and no credentials', () => {
    expect(() => checkUrlForm('http://example.com/hook', strict)).toThrow(/https/);
    expect(checkUrlForm('http://example.com/hook', http).hostname).toBe('example.com');
    expect(() => checkUrlForm('ftp://example.com', http)).toThrow(OutboundRefused);
    expect(() => checkUrlForm('https://user:pw@example.com', strict)).toThrow(/credentials/);
    expect(() => checkUrlForm('not a url', strict)).toThrow(/valid URL/);
  });

  it.each([
    'http://127.0.0.1:9/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::7f00:1]/',
    'http://0.0.0.0/',
    'http://localhost/',
  ])('refuses %s with the allowlist empty, sending nothing', async (url) => {
    await expect(resolveChecked(url, http)).rejects.toThrow(/does not resolve to a public address/);
  });

  it('lets an allowlisted loopback through', async () => {
    const target = await resolveChecked('http://127.0.0.1:8080/x', {
      allowlist: parseAllowlist(['127.0.0.0/8']),
      allowHttp: true,
    });
    expect(target).toMatchObject({ address: '127.0.0.1', family: 4 });
  });
});
