// What connecting takes, one set of fields for the dashboard and the operator CLI: the
// dashboard sends every field and nothing else; the CLI the same, Bluesky's service optional.
import { describe, expect, it } from 'vitest';
import { CONNECTION_CONFIGS, ConnectInput } from '../../core/connections/schema.ts';

const bluesky = { identifier: 'brand.example', app_password: 'app-password' };

describe('connection input', () => {
  it("the dashboard's: every field of the platform, and nothing else", () => {
    const full = { service: 'https://bsky.social', ...bluesky };
    expect(ConnectInput.safeParse({ platform: 'bluesky', config: full }).success).toBe(true);
    expect(ConnectInput.safeParse({ platform: 'bluesky', config: bluesky }).success).toBe(false);
    expect(
      ConnectInput.safeParse({ platform: 'bluesky', config: { ...full, extra: 1 } }).success,
    ).toBe(false);
    expect(ConnectInput.safeParse({ platform: 'x', config: {} }).success).toBe(false);
  });

  it("the CLI's: the same rules, Bluesky's service optional, other keys refused", () => {
    expect(
      CONNECTION_CONFIGS.bluesky!.parse({ ...bluesky, identifier: ' brand.example ' }),
    ).toEqual(bluesky);
    expect(CONNECTION_CONFIGS.bluesky!.safeParse({ ...bluesky, extra: 1 }).success).toBe(false);
    expect(CONNECTION_CONFIGS.bluesky!.safeParse({ ...bluesky, app_password: '' }).success).toBe(
      false,
    );
    expect(
      CONNECTION_CONFIGS.mastodon!.safeParse({
        instance: 'ftp://instance.example',
        access_token: 't',
      }).success,
    ).toBe(false);
    // No connector yet: the CLI passes its config on, and connecting answers 501.
    expect(CONNECTION_CONFIGS.x).toBeUndefined();
  });
});
