// The platforms the warnings and the platform states call publishable are exactly those a
// connector is shipped for, so adding a connector without listing it (or the reverse) fails here.
import { describe, expect, it } from 'vitest';
import { builtinConnectors } from '../../core/connectors/builtin.ts';
import { PUBLISHING_PLATFORMS } from '../../core/kernel/platforms.ts';
import type { OutboundPolicy } from '../../core/outbound/guard.ts';
import type { Storage } from '../../core/storage/storage.ts';

describe('PUBLISHING_PLATFORMS', () => {
  it('equals the platforms of the built-in connectors', () => {
    // Building the connectors reads neither storage nor the network.
    const connectors = builtinConnectors({
      outbound: {} as OutboundPolicy,
      storage: {} as Storage,
    });
    expect([...PUBLISHING_PLATFORMS].sort()).toEqual(Object.keys(connectors).sort());
  });
});
