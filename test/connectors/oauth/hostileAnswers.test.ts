// What the six OAuthApps do with answers that are not what their platform documents (a page of
// HTML, a token or an id missing, an id too large to be exact, a body larger than any answer,
// an error that echoes what it was sent): each call fails at once with a reason, never with
// tokens or an identity made of what was not there, and no message carries a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicationError } from '../../../core/connectors/connector.ts';
import { OAUTH_APPS } from '../../../core/connectors/oauth/index.ts';
import type { OAuthApp } from '../../../core/connectors/oauthApp.ts';
import type { OAuthPlatform } from '../../../core/platformApps.ts';
import { failure } from '../../support/platforms/failure.ts';
import {
  type Answer,
  oauthContext,
  type RawAnswer,
  type StandIn,
  startStandIn,
} from '../../support/platforms/standIn.ts';

const CLIENT = { id: 'hostile-client-id', secret: 'hostile-client-secret-0042' };
const REFRESH = 'refresh-token-secret-0042';
const ACCESS = 'access-token-secret-0042';
const REDIRECT = 'https://sps.example/connect/callback';

/** What the platform answers to every request, whatever its path. */
let answer: Answer | RawAnswer = { status: 200, body: {} };
let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn((req) => {
    if ('echo' in answer) {
      // The platform's error repeats everything it was sent: form, query and headers.
      const sent = JSON.stringify([req.form, req.query, req.headers.authorization]);
      return { status: 400, body: { error: { message: `rejected ${sent}` }, message: sent } };
    }
    return 'raw' in answer ? undefined : answer;
  });
});
afterAll(() => standIn.close());

const PLATFORMS = ['threads', 'instagram', 'facebook', 'tiktok', 'youtube', 'pinterest'] as const;
const appOf = (p: OAuthPlatform) => OAUTH_APPS[p] as OAuthApp;

/** Each call of an app, as the connect flow, the refresh and the CLI make them. */
const CALLS = {
  exchangeCode: (p: OAuthPlatform) =>
    appOf(p).exchangeCode(oauthContext(p, standIn.url, CLIENT), {
      code: 'code-secret-0042',
      redirectUri: REDIRECT,
    }),
  refresh: (p: OAuthPlatform) =>
    appOf(p).refresh(oauthContext(p, standIn.url, CLIENT), {
      access_token: ACCESS,
      refresh_token: REFRESH,
    }),
  identify: (p: OAuthPlatform) =>
    appOf(p).identify(oauthContext(p, standIn.url, CLIENT), { access_token: ACCESS }),
};
const cases = PLATFORMS.flatMap((p) =>
  (Object.keys(CALLS) as (keyof typeof CALLS)[]).map((call) => [p, call] as const),
);

/** Sends every answer through a raw server: the stand-in frame answers JSON only. */
async function withRaw(raw: RawAnswer, run: () => Promise<unknown>) {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(raw.status, raw.headers ?? {}).end(raw.raw));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as import('node:net').AddressInfo;
  const previous = standIn.url;
  (standIn as { url: string }).url = `http://127.0.0.1:${port}`;
  try {
    return await run();
  } finally {
    (standIn as { url: string }).url = previous;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

describe.each(cases)('%s %s', (platform, call) => {
  it('a page of HTML answered 200 fails, saying the body is not JSON', async () => {
    const err = await withRaw(
      {
        status: 200,
        raw: '<html>Welcome to our portal</html>',
        headers: { 'content-type': 'text/html' },
      },
      () => failure(CALLS[call](platform)),
    );
    expect(err).toBeInstanceOf(PublicationError);
    expect(err).toMatchObject({ retryable: false });
    expect((err as PublicationError).message).toMatch(
      /without the JSON it documents \(the body is not JSON\)/,
    );
  });

  it('an answer without the token or the id fails, naming what is missing', async () => {
    answer = { status: 200, body: { token_type: 'bearer', data: {}, items: [{}] } };
    const err = await failure(CALLS[call](platform));
    expect(err).toBeInstanceOf(PublicationError);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/without the JSON it documents|lists no Page/);
  });

  it('a body larger than any answer is refused, not parsed', async () => {
    const huge = JSON.stringify({ access_token: 'a'.repeat(2 * 1024 * 1024) });
    const err = await withRaw({ status: 200, raw: huge }, () => failure(CALLS[call](platform)));
    expect(err).toMatchObject({ retryable: false });
    expect((err as PublicationError).message).toMatch(/answered with more than 1 MB/);
  });

  it('an error that echoes the request shows no secret', async () => {
    answer = { status: 400, body: {}, echo: true } as never;
    const err = await failure(CALLS[call](platform));
    expect(err).toBeInstanceOf(PublicationError);
    expect(err.message).toMatch(/answered 400/);
    for (const secret of [CLIENT.secret, REFRESH, ACCESS, 'code-secret-0042'])
      expect(err.message).not.toContain(secret);
    expect(err.reconnect).toBe(call === 'refresh');
    answer = { status: 200, body: {} };
  });
});

describe('ids and tokens as a hostile platform might send them', () => {
  it('a Meta user id too large to be exact as a JSON number is refused, not rounded', async () => {
    // As the platform's JSON carries it: the parser rounds it to another account's id.
    const raw = '{"user_id":17841400000000001,"username":"brand"}';
    const err = (await withRaw({ status: 200, raw }, () =>
      failure(CALLS.identify('instagram')),
    )) as PublicationError;
    expect(err.message).toMatch(/user_id: a number id not exact in JSON \(too large/);
  });

  it('a token with spaces or controls in it is not a token', async () => {
    answer = {
      status: 200,
      body: { access_token: 'ya29 <script>', expires_in: 3599, refresh_token: 'r' },
    };
    const err = await failure(CALLS.refresh('youtube'));
    expect(err.message).toMatch(/access_token: not a token/);
  });

  it('a display name is kept plain and short', async () => {
    answer = {
      status: 200,
      body: {
        data: { user: { open_id: 'o-1', display_name: `\u202eevil\u0000${'x'.repeat(400)}` } },
      },
    };
    const identity = await appOf('tiktok').identify(oauthContext('tiktok', standIn.url, CLIENT), {
      access_token: ACCESS,
    });
    expect(identity.handle).toBe(`evil${'x'.repeat(96)}`);
  });

  it('an expiry that is not a number of seconds fails the refresh', async () => {
    answer = {
      status: 200,
      body: { access_token: 'pina_x', expires_in: -5, scope: 'pins:read', refresh_token: 'pinr_y' },
    };
    const err = await failure(CALLS.refresh('pinterest'));
    expect(err.message).toMatch(/expires_in/);
  });
});
