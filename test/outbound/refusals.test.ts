// What a caller hears when the outbound guard refuses an address (core/outbound/guard.ts): the
// host it gave does not resolve to a public address, the same words for a name that does not
// resolve at all, so nobody confirms the names inside the operator's network (`postgres`).
// What that name resolved to, or that it did not, goes to the log only. Checked on every surface that passes the refusal on, with the
// allowlist empty and `localhost` (which resolves to 127.0.0.1 and ::1): nothing is sent.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy, resolveChecked, sendChecked } from '../../core/outbound/guard.ts';
import { logSink } from '../support/logs.ts';
import { admin, connectArgs } from '../support/processes.ts';
import { call, signedInDashboard } from '../support/server.ts';
import { useService } from '../support/service.ts';

let logged = '';
const svc = useService({
  env: { OUTBOUND_ALLOW_HTTP: 'true' },
  logger: createLogger(
    'info',
    logSink((line) => {
      logged += line;
    }),
  ),
  account: { scopes: ['read', 'publish', 'media', 'generate'] },
  worker: {},
});

const RESOLVED = /127\.0\.0\.1|::1|\bresolves to\b/;

/** The refusal as the caller reads it: names the host given, not what it resolved to. */
function expectRefusal(message: string) {
  expect(message).toMatch(/localhost does not resolve to a public address/);
  expect(message).not.toMatch(RESOLVED);
}

describe('a refused outbound address', () => {
  it('webhook create: 422 naming the host, not its address; the address is logged', async () => {
    const me = await signedInDashboard(svc.server, 'plus');
    for (const path of ['/webhooks', '/app/api/webhooks']) {
      const res = await call(svc.server, 'POST', path, {
        headers: me.headers,
        body: { url: 'http://localhost:1/hook' },
      });
      expect(res.status, path).toBe(422);
      expectRefusal(res.body.detail[0].msg);
    }
    const lines = logged
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => /outbound request refused/.test(l.msg));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatchObject({ level: 40, host: 'localhost' });
    expect(lines[0].address).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('URL ingest: 422 naming the host', async () => {
    const res = await call(svc.server, 'POST', '/v1/assets', {
      key: svc.key,
      body: { url: 'http://localhost:1/photo.png' },
    });
    expect(res.status).toBe(422);
    expectRefusal(res.body.detail[0].msg);
  });

  it('generation from a URL: the refusal names the host', async () => {
    const res = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: 'http://localhost:1/article' },
    });
    expect(res.status).toBe(422);
    expectRefusal(JSON.stringify(res.body.detail));
  });

  it('connecting a platform instance: the refusal names the host', async () => {
    const me = await signedInDashboard(svc.server);
    const res = await me.send('POST', '/accounts', {
      platform: 'mastodon',
      config: { instance: 'http://localhost:1', access_token: 'token-value' },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('credentials_refused');
    expectRefusal(res.body.detail);
  });
});

/**
 * A name no resolver knows: a DNS label is at most 63 characters, so the system's resolver
 * refuses it before sending a query (nothing leaves this machine).
 */
const UNKNOWN = `${'n'.repeat(64)}.example`;

/** The caller's answer with the host given taken out: what tells one host from another. */
const withoutHost = (text: string, host: string) => text.replaceAll(host, '{host}');

describe('a name that does not resolve', () => {
  it('webhook create: the same answer as a private address; the log says which', async () => {
    const me = await signedInDashboard(svc.server, 'plus');
    const answers = [];
    for (const host of [UNKNOWN, 'localhost']) {
      const res = await call(svc.server, 'POST', '/app/api/webhooks', {
        headers: me.headers,
        body: { url: `http://${host}:1/hook` },
      });
      expect(res.status).toBe(422);
      answers.push(withoutHost(JSON.stringify(res.body), host));
    }
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toMatch(/\{host\} does not resolve to a public address/);
    const line = logged
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.host === UNKNOWN);
    expect(line).toMatchObject({ level: 40, msg: expect.stringMatching(/does not resolve/) });
  });

  it('URL ingest, generation from a URL and connect: the same answer as a private address', async () => {
    const me = await signedInDashboard(svc.server);
    const attempts = [
      (host: string) =>
        call(svc.server, 'POST', '/v1/assets', {
          key: svc.key,
          body: { url: `http://${host}:1/photo.png` },
        }),
      (host: string) =>
        call(svc.server, 'POST', '/v1/generate', {
          key: svc.key,
          body: { url: `http://${host}:1/article` },
        }),
      (host: string) =>
        me.send('POST', '/accounts', {
          platform: 'mastodon',
          config: { instance: `http://${host}:1`, access_token: 'token-value' },
        }),
    ];
    for (const attempt of attempts) {
      const [unknown, local] = [await attempt(UNKNOWN), await attempt('localhost')];
      // A failed generation names its own job, which differs from one to the next.
      const { job_id: _, ...answer } = unknown.body;
      const { job_id: __, ...localAnswer } = local.body;
      expect(unknown.status).toBe(422);
      expect(withoutHost(JSON.stringify(answer), UNKNOWN)).toBe(
        withoutHost(JSON.stringify(localAnswer), 'localhost'),
      );
    }
  });
});

describe('the operator CLI', () => {
  it('connect: the refusal names the host; the address is on the operator log only', async () => {
    const args = connectArgs(svc.acct, 'mastodon', {
      instance: 'http://localhost:1',
      access_token: 'token-value',
    });
    const res = await admin(svc.server.db.url, args, { OUTBOUND_ALLOW_HTTP: 'true' });
    expect(res.code).not.toBe(0);
    // Its lines: which database it used, the log line, the error.
    const [, logLine, ...message] = res.stderr.trim().split('\n');
    expectRefusal(message.join('\n'));
    expect(JSON.parse(logLine!)).toMatchObject({
      level: 40,
      host: 'localhost',
      address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
    });
  }, 60_000);
});

describe('a network error on an allowed address', () => {
  it('names the host given, not the address it connected to', async () => {
    // Allowed loopback, port 1: nothing listens, so the connection is refused at once.
    const policy = outboundPolicy({
      outboundAllowlist: ['127.0.0.0/8', '::1/128'],
      outboundAllowHttp: true,
    });
    const target = await resolveChecked('http://localhost:1/hook', policy);
    const err = await sendChecked(target, {
      method: 'GET',
      headers: {},
      timeoutMs: 5_000,
      maxResponseBytes: 1_000,
    }).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(err?.code).toBe('ECONNREFUSED');
    expect(err?.message).toMatch(/ECONNREFUSED localhost:1/);
    expect(err?.message).not.toMatch(RESOLVED);
  });
});
