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
  });

  it("the CLI's for each OAuth platform: its tokens and the account it posts as (CONTRACT.md)", () => {
    const tokens = ['access_token', 'refresh_token', 'expires_at'];
    const keys = (p: keyof typeof CONNECTION_CONFIGS) => Object.keys(CONNECTION_CONFIGS[p]!.shape);
    expect({
      x: keys('x'),
      linkedin: keys('linkedin'),
      threads: keys('threads'),
      instagram: keys('instagram'),
      facebook: keys('facebook'),
      tiktok: keys('tiktok'),
      youtube: keys('youtube'),
      pinterest: keys('pinterest'),
    }).toEqual({
      x: tokens,
      linkedin: [...tokens, 'organization'],
      threads: [...tokens, 'user_id'],
      instagram: [...tokens, 'user_id'],
      facebook: [...tokens, 'page_id'],
      tiktok: [...tokens, 'open_id', 'privacy'],
      youtube: [...tokens, 'privacy'],
      pinterest: [...tokens, 'board_id'],
    });
    const x = CONNECTION_CONFIGS.x!;
    expect(x.parse({ access_token: ' abc ' })).toEqual({ access_token: 'abc' });
    expect(x.safeParse({ access_token: 'abc', expires_at: '2026-12-01T10:00:00Z' }).success).toBe(
      true,
    );
    expect(x.safeParse({ access_token: 'abc', expires_at: 'in two hours' }).success).toBe(false);
    expect(x.safeParse({ access_token: 'abc', user_id: '1' }).success).toBe(false);
    expect(CONNECTION_CONFIGS.pinterest!.safeParse({ access_token: 'abc' }).success).toBe(false);
    expect(
      CONNECTION_CONFIGS.linkedin!.safeParse({
        access_token: 'abc',
        organization: 'urn:li:organization:2414183',
      }).success,
    ).toBe(true);
    expect(
      CONNECTION_CONFIGS.tiktok!.safeParse({ access_token: 'abc', open_id: 'o', privacy: 'PUBLIC' })
        .success,
    ).toBe(false);
  });
});
