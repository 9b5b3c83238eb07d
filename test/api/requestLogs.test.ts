// What the request log keeps of a request: enough to trace it, never a credential. A signed
// media address is a credential until it expires, so its signature is cut from logged URLs;
// so are keys, tokens and codes a client puts in a query string.
import http from 'node:http';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl, serializeRequest } from '../../core/logger.ts';
import { logSink } from '../support/logs.ts';
import { makeAccount, makeKey, startServer } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

let logged = '';
const server = useServer({
  logger: createLogger(
    'info',
    logSink((line) => {
      logged += line;
    }),
  ),
});

describe('the access log', () => {
  it('writes one line a request, when it is answered, with its reqId and no credential', async () => {
    const owner = await makeAccount(server.pool);
    const key = await makeKey(server.pool, owner.accountId, ['read']);
    const res = await fetch(`${server.baseUrl}/v1/me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const reqId = res.headers.get('x-request-id');
    await res.text();
    const lines = logged
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.reqId === reqId);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({
          method: 'GET',
          url: '/v1/me',
          remoteAddress: '127.0.0.1',
          remotePort: expect.any(Number),
        }),
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(logged).not.toContain(key);
  });

  it('is byte for byte the line pino writes for the same fields, odd characters included', async () => {
    // Quotes, backslashes and a tab in the URL and Host (a raw request: fetch would escape them).
    const { status, reqId } = await rawGet(server.baseUrl, '/healthz?q="\\x', 'lo"cal\\host\t1');
    expect(status).toBe(200);
    const written = logged.split('\n').find((l) => l.includes(`"reqId":"${reqId}"`))!;
    const { req, res: answered, responseTime } = JSON.parse(written);
    expect(req.url).toBe('/healthz?q="\\x');
    expect(req.host).toBe('lo"cal\\host\t1');
    const { log, out } = capturedLogger();
    log.info(
      {
        reqId,
        req: {
          method: req.method,
          url: req.url,
          host: req.host,
          ip: req.remoteAddress,
          socket: { remotePort: req.remotePort },
        },
        res: answered,
        responseTime,
      },
      'request completed',
    );
    const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
    expect(withoutTime(written)).toBe(withoutTime(out().trim()));
  });

  it("a request's own lines carry its reqId, through its logger and that logger's children", async () => {
    let lines = '';
    const noisy = await startServer({
      logger: createLogger(
        'info',
        logSink((l) => {
          lines += l;
        }),
      ),
      extend: async (app) => {
        app.get('/noisy', async (req) => {
          req.log.debug('below the level');
          req.log.warn({ step: 1 }, 'something odd');
          req.log.child({ part: 'inner' }).info('deeper');
          return { ok: true };
        });
      },
    });
    try {
      const res = await fetch(`${noisy.baseUrl}/noisy`);
      const reqId = res.headers.get('x-request-id');
      await res.text();
      const mine = lines
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.reqId === reqId);
      expect(mine.map(({ level, msg, step, part }) => ({ level, msg, step, part }))).toEqual([
        { level: 40, msg: 'something odd', step: 1, part: undefined },
        { level: 30, msg: 'deeper', step: undefined, part: 'inner' },
        { level: 30, msg: 'request completed', step: undefined, part: undefined },
      ]);
    } finally {
      await noisy.app.close();
      await noisy.db.drop();
    }
  });

  it('leaves a logger set up otherwise (a mixin here) to pino', async () => {
    let lines = '';
    const mixed = await startServer({
      logger: pino(
        // As core/logger.ts sets one up, plus a mixin.
        { level: 'info', serializers: { req: serializeRequest }, mixin: () => ({ tenant: 'a' }) },
        logSink((l) => {
          lines += l;
        }),
      ),
    });
    try {
      const res = await fetch(`${mixed.baseUrl}/healthz`);
      const reqId = res.headers.get('x-request-id');
      await res.text();
      const line = lines.split('\n').find((l) => l.includes(`"reqId":"${reqId}"`))!;
      expect(JSON.parse(line)).toMatchObject({ tenant: 'a', msg: 'request completed' });
    } finally {
      await mixed.app.close();
      await mixed.db.drop();
    }
  });
});

describe('signed media addresses in the request log', () => {
  it('a fetched signed address is logged without its signature', async () => {
    const owner = await makeAccount(server.pool);
    const key = await makeKey(server.pool, owner.accountId, ['read', 'media']);
    const png = await solidPng({ width: 8, height: 8 }, { r: 9, g: 9, b: 9 });
    const asset = await uploadImage(server, key, png);
    const signed = new URL(asset.signed_url);
    const sig = signed.searchParams.get('sig')!;
    const res = await fetch(`${server.baseUrl}${signed.pathname}${signed.search}`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();

    const guessed = `${server.baseUrl}/media/${asset.id}?expires=1&sig=GuessedSignatureValue`;
    expect((await fetch(guessed)).status).toBe(404);
    // The query parser decodes keys, so `%73ig` is `sig`: the log must read it the same way.
    const encoded = await fetch(
      `${server.baseUrl}${signed.pathname}?expires=${signed.searchParams.get('expires')}&%73ig=${sig}`,
    );
    expect(encoded.status).toBe(200);
    await encoded.arrayBuffer();

    const lines = logged
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const urls = lines.filter((l) => l.req?.url?.startsWith('/media/')).map((l) => l.req.url);
    expect(urls).toContain(
      `/media/${asset.id}?expires=${signed.searchParams.get('expires')}&sig=[redacted]`,
    );
    expect(urls).toContain(`/media/${asset.id}?expires=1&sig=[redacted]`);
    expect(urls).toContain(
      `/media/${asset.id}?expires=${signed.searchParams.get('expires')}&%73ig=[redacted]`,
    );
    expect(logged).not.toContain(sig);
    expect(logged).not.toContain('GuessedSignatureValue');
  });
});

describe('keys, tokens and codes in query strings', () => {
  it.each(['token', 'access_token', 'key', 'api_key', 'code', 'refresh_token'])(
    '?%s= is logged without its value',
    async (param) => {
      const owner = await makeAccount(server.pool);
      const key = await makeKey(server.pool, owner.accountId, ['read']);
      // A key sent in the query (a client that does not set headers), upper-cased or
      // percent-encoded as the query parser reads it, beside a parameter that stays.
      const encoded = [...param].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
      const paths = [
        `/v1/me?${param}=${key}&q=kept`,
        `/v1/me?q=kept&${param.toUpperCase()}=${key}`,
        `/v1/me?${encoded}=${key}`,
      ];
      for (const path of paths) await (await fetch(`${server.baseUrl}${path}`)).text();
      const urls = logged
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).req?.url as string | undefined)
        .filter((u) => u?.startsWith('/v1/me?'));
      expect(urls).toContain(`/v1/me?${param}=[redacted]&q=kept`);
      expect(urls).toContain(`/v1/me?q=kept&${param.toUpperCase()}=[redacted]`);
      expect(urls).toContain(`/v1/me?${encoded}=[redacted]`);
      expect(logged).not.toContain(key);
    },
  );
});

/** The URL the access line of the request `reqId` logged. */
const loggedUrl = (reqId: string): string =>
  JSON.parse(logged.split('\n').find((l) => l.includes(`"reqId":"${reqId}"`))!).req.url;

describe('credentials in query strings however they are spelled', () => {
  // Spellings a query parser (PHP's, qs, a proxy's) may read as `token`: array brackets,
  // encoded brackets, `;` and a second `?` as separators, a NUL, an encoded `?`.
  it.each([
    ['token[]=S'],
    ['token[0]=S&limit=5'],
    ['token%5B%5D=S'],
    ['x=1;token=S'],
    ['token%00=S'],
    ['a=b?token=S'],
    ['%3Ftoken=S'],
    ['%2574oken=S'],
    ['a=b#token=S'],
  ])('?%s is logged without the credential', async (query) => {
    const secret = `secret-${Math.random().toString(36).slice(2)}`;
    const path = `/v1/me?${query.replace('S', secret)}`;
    const { reqId } = await rawGet(server.baseUrl, path, 'localhost');
    const url = loggedUrl(reqId);
    expect(url).not.toContain(secret);
    expect(url).toBe(path.replace(secret, '[redacted]'));
  });

  // Names outside the first list: what clients and OAuth put credentials under.
  it.each([
    'client_secret',
    'password',
    'id_token',
    'registration_access_token',
    'code_verifier',
    'apikey',
    'api-key',
    'X-Api-Key',
    'accessToken',
    'refreshToken',
    'secret',
    'authorization',
    'auth',
    'bearer',
    'session',
    'session_id',
    'jwt',
    'state',
  ])('?%s= is logged without its value', async (name) => {
    const secret = `secret-${Math.random().toString(36).slice(2)}`;
    const { reqId } = await rawGet(
      server.baseUrl,
      `/v1/me?limit=5&${name}=${secret}&cursor=abc`,
      'localhost',
    );
    expect(loggedUrl(reqId)).toBe(`/v1/me?limit=5&${name}=[redacted]&cursor=abc`);
  });

  it('parameters that are not credentials stay readable, every one a route declares included', async () => {
    const path = '/v1/posts?limit=5&status_filter=queued&brand_id=3&cursor=abc&q=kept';
    const { reqId } = await rawGet(server.baseUrl, path, 'localhost');
    expect(loggedUrl(reqId)).toBe(path);
    const declared = new Set<string>();
    for (const route of server.app.routes) {
      const query = route.schema?.querystring as { shape?: Record<string, unknown> } | undefined;
      for (const name of Object.keys(query?.shape ?? {})) declared.add(name);
    }
    // The credentials routes read from a query: a signed media address's signature, and an
    // OAuth platform's code and state on the connect callback.
    for (const credential of ['sig', 'code', 'state']) declared.delete(credential);
    expect(declared.size).toBeGreaterThan(5);
    for (const name of declared) expect(redactUrl(`/x?${name}=value`)).toBe(`/x?${name}=value`);
  });
});

/** A logger as the service makes it, writing into a string the test reads. */
function capturedLogger() {
  let written = '';
  const log = createLogger(
    'info',
    logSink((line) => {
      written += line;
    }),
  );
  return { log, out: () => written };
}

describe('redaction by exact paths', () => {
  it('an error logged with credentials on it shows none of them', () => {
    const { log, out } = capturedLogger();
    const err = Object.assign(new Error('upstream refused'), {
      password: 'pw-value',
      key: 'key-value',
      secret: 'secret-value',
      token: 'token-value',
      authorization: 'Bearer auth-value',
    });
    log.error({ err }, 'request failed');
    for (const value of ['pw-value', 'key-value', 'secret-value', 'token-value', 'auth-value'])
      expect(out()).not.toContain(value);
    expect(JSON.parse(out()).err).toMatchObject({
      message: 'upstream refused',
      token: '[redacted]',
    });
  });

  it('a logged request never carries its headers, so no header path needs redacting', () => {
    const { log, out } = capturedLogger();
    const req = {
      method: 'GET',
      url: '/v1/me',
      ip: '127.0.0.1',
      headers: { authorization: 'Bearer sps_secret', cookie: 'sps_session=secret' },
    };
    log.info({ req }, 'incoming request');
    expect(out()).not.toContain('secret');
    expect(JSON.parse(out()).req).toEqual({
      method: 'GET',
      url: '/v1/me',
      remoteAddress: '127.0.0.1',
    });
  });
});

/** A GET with the path and Host sent as given (no URL normalization), on a fresh connection. */
function rawGet(baseUrl: string, path: string, host: string) {
  const { port } = new URL(baseUrl);
  return new Promise<{ status: number | undefined; reqId: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode, reqId: String(res.headers['x-request-id']) }),
        );
      })
      .on('error', reject);
  });
}
