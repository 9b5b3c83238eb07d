import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../core/config.ts';

describe('configuration', () => {
  it('defaults match CONTRACT.md', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
    });
    expect(c.storage).toBe('fs');
    expect(c.workerConcurrency).toBe(4);
    expect(c.outboundAllowlist).toEqual([]);
    expect(c.signup).toBe('first');
  });

  it('a bad value stops start-up with a message naming each variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', STORAGE: 'tape' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', STORAGE: 'tape', OUTBOUND_ALLOWLIST: '10.0.0.0' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/STORAGE/);
      expect((err as Error).message).toMatch(/OUTBOUND_ALLOWLIST/);
    }
  });

  it('parses the outbound allowlist', () => {
    expect(loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8, ::1/128' }).outboundAllowlist).toEqual([
      '127.0.0.0/8',
      '::1/128',
    ]);
  });
});
