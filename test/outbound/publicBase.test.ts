// Whether PUBLIC_BASE_URL looks reachable from the internet: the warning platforms that fetch
// media (Threads, Instagram, Pinterest) need, judged from the address alone.
import { describe, expect, it } from 'vitest';
import { publicBaseUnreachable } from '../../core/outbound/publicBase.ts';

describe('publicBaseUnreachable', () => {
  it.each([
    ['http://localhost:3000', 'loopback name'],
    ['http://LOCALHOST.:3000', 'loopback name, upper case with the root dot'],
    ['http://app.localhost', 'a name under localhost'],
    ['http://127.0.0.1:3000', 'IPv4 loopback'],
    ['http://127.8.9.10', 'the rest of 127/8'],
    ['http://0x7f.1', 'loopback written in hex (the URL parser normalizes it)'],
    ['http://2130706433', 'loopback as one number'],
    ['http://0.0.0.0:3000', 'the unspecified address'],
    ['http://10.1.2.3', 'RFC 1918 10/8'],
    ['http://172.16.0.9', 'RFC 1918 172.16/12'],
    ['http://192.168.1.20:8080', 'RFC 1918 192.168/16'],
    ['http://100.64.0.1', 'carrier-grade NAT'],
    ['http://169.254.169.254', 'IPv4 link-local'],
    ['http://[::1]:3000', 'IPv6 loopback'],
    ['http://[fe80::1]', 'IPv6 link-local'],
    ['http://[fd12:3456::1]', 'IPv6 unique-local'],
    ['http://[::ffff:192.168.0.1]', 'a private IPv4 in IPv6'],
    ['http://printer.local', 'mDNS .local'],
    ['https://social.corp.internal', '.internal'],
  ])('%s is not reachable (%s), and the sentence names PUBLIC_BASE_URL', (url) => {
    const why = publicBaseUnreachable(url);
    expect(why).toMatch(/^PUBLIC_BASE_URL \(/);
    expect(why).toContain('not reachable from the internet');
  });

  it.each([
    ['https://social.example.com', 'a public name'],
    ['https://93.184.216.34', 'a public IPv4'],
    ['https://[2606:4700::1111]', 'a public IPv6'],
    ['https://localhost.example.com', 'a public name that starts with localhost'],
    ['https://internal.example.org', 'a public name that starts with internal'],
  ])('%s looks reachable (%s)', (url) => {
    expect(publicBaseUnreachable(url)).toBeNull();
  });
});
