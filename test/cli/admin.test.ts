// The operator CLI, run as a real process: JSON on stdout, non-zero exit and a message on error.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, connectArgs } from '../support/processes.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const server = useServer();

const run = (...args: string[]) => admin(server.db.url, args);

// Each call is a new Node process (about 0.3 s of CPU, several seconds of wall time on a loaded
// 2-core machine), and the first test makes eight of them.
describe('npm run admin', { timeout: 60_000 }, () => {
  it('creates an account with a selected brand, a key that works, and manages the account', async () => {
    const created = await run(
      'account',
      'create',
      '--email',
      'ops@example.com',
      '--password',
      'long enough',
      '--plan',
      'plus',
      '--brand',
      'Acme',
    );
    expect(created.code).toBe(0);
    expect(created.json).toEqual({
      account_id: expect.stringMatching(/^\d+$/),
      brand_id: expect.stringMatching(/^\d+$/),
      brand_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      plan: 'plus',
    });

    const key = await run(
      'key',
      'create',
      '--email',
      'ops@example.com',
      '--scopes',
      'read,publish',
      '--name',
      'bot',
    );
    expect(key.code).toBe(0);
    expect(key.json).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^sps_/),
      scopes: ['read', 'publish'],
    });
    const me = await call(server, 'GET', '/v1/me', { key: key.json.key });
    expect(me.body).toEqual({
      email: 'ops@example.com',
      plan: 'plus',
      scopes: ['read', 'publish'],
    });

    expect(
      (await run('account', 'plan', '--email', 'ops@example.com', '--plan', 'business')).json,
    ).toEqual({
      account_id: created.json.account_id,
      plan: 'business',
    });
    expect((await call(server, 'GET', '/v1/me', { key: key.json.key })).body.plan).toBe('business');

    const feature = await run(
      'account',
      'feature',
      '--email',
      'ops@example.com',
      '--feature',
      'video_templates',
    );
    expect(feature.json.features).toEqual(['video_templates']);
    const off = await run(
      'account',
      'feature',
      '--email',
      'ops@example.com',
      '--feature',
      'video_templates',
      '--off',
    );
    expect(off.json.features).toEqual([]);

    expect(
      (await run('account', 'credits', '--email', 'ops@example.com', '--add', '250')).json.credits,
    ).toBe('250');
    const budget = await run(
      'account',
      'budget',
      '--email',
      'ops@example.com',
      '--per-minute',
      '42',
    );
    expect(budget.json).toEqual({ account_id: created.json.account_id, budget_per_minute: 42 });
    expect(
      (await call(server, 'GET', '/v1/me', { key: key.json.key })).headers.get('ratelimit-limit'),
    ).toBe('42');

    const brand = await run(
      'brand',
      'create',
      '--email',
      'ops@example.com',
      '--name',
      'Side',
      '--timezone',
      'Asia/Tokyo',
    );
    expect(brand.json).toEqual({ brand_id: expect.any(String), brand_uuid: expect.any(String) });
    const { rows } = await server.pool.query('select name, timezone from brands where id = $1', [
      brand.json.brand_id,
    ]);
    expect(rows[0]).toEqual({ name: 'Side', timezone: 'Asia/Tokyo' });
  });

  it('fails with a message and a non-zero exit on bad input, changing nothing', async () => {
    const cases: string[][] = [
      ['account', 'create', '--email', 'not-an-email', '--password', 'long enough'],
      ['account', 'create', '--email', 'x@example.com', '--password', 'short'],
      ['account', 'plan', '--email', 'nobody@example.com', '--plan', 'plus'],
      ['account', 'feature', '--email', 'nobody@example.com', '--feature', 'flying'],
      ['key', 'create', '--email', 'nobody@example.com', '--scopes', 'read,admin'],
      [
        'brand',
        'create',
        '--email',
        'nobody@example.com',
        '--name',
        'B',
        '--timezone',
        'Mars/Base',
      ],
      ['account', 'create', '--email', 'x@example.com', '--pasword', 'typo in flag'],
      ['no-such-command'],
    ];
    for (const args of cases) {
      const res = await run(...args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout, args.join(' ')).toBe('');
      expect(res.stderr.length, args.join(' ')).toBeGreaterThan(0);
    }
    const { rows } = await server.pool.query(
      `select count(*)::int as n from accounts where email = 'x@example.com'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it("lists an account's keys without the secret and revokes one, which then fails", async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    const listed = await run('key', 'list', '--email', acct.email);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json).toEqual({
      keys: [
        {
          id: expect.stringMatching(/^\d+$/),
          name: 'test',
          scopes: ['read', 'publish'],
          created_at: expect.any(String),
          last_used_at: null,
        },
      ],
    });
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).not.toMatch(/sps_/);

    const id = listed.json.keys[0].id;
    const revoked = await run('key', 'revoke', '--email', acct.email, '--id', id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json).toEqual({ id, revoked: true });
    expect((await call(server, 'GET', '/v1/me', { key })).status).toBe(401);

    const again = await run('key', 'revoke', '--email', acct.email, '--id', id);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/API key not found/);
  }, 60_000);

  it('adds, lists and removes a brand competitor profiles', async () => {
    const acct = await makeAccount(server.pool);
    const added = await run(
      'competitor',
      'add',
      '--email',
      acct.email,
      '--brand-id',
      acct.brandId,
      '--platform',
      'mastodon',
      '--handle',
      '@Rival@Social.Example',
      '--ratio',
      '4.5',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.json).toMatchObject({
      platform: 'mastodon',
      handle: 'rival@social.example',
      ratio: 4.5,
      floor: 20,
    });
    const bad = await run(
      'competitor',
      'add',
      '--email',
      acct.email,
      '--brand-id',
      acct.brandId,
      '--platform',
      'myspace',
      '--handle',
      'x',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--platform: /);
    const listed = await run(
      'competitor',
      'list',
      '--email',
      acct.email,
      '--brand-id',
      acct.brandId,
    );
    expect(listed.json.competitors).toEqual([expect.objectContaining({ id: added.json.id })]);
    const removed = await run('competitor', 'remove', '--email', acct.email, '--id', added.json.id);
    expect(removed.json).toEqual({ id: added.json.id, removed: true });
    const again = await run(
      'competitor',
      'list',
      '--email',
      acct.email,
      '--brand-id',
      acct.brandId,
    );
    expect(again.json.competitors).toEqual([]);
  });

  it('names an unknown command and lists the commands', async () => {
    const res = await run('key', 'delete', '--email', 'a@example.com');
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/unknown command "key delete"/);
    for (const command of ['account create', 'key create', 'key list', 'key revoke'])
      expect(res.stderr).toContain(command);
  }, 30_000);

  it('account create without --password reads it from standard input, and never prints it', async () => {
    const password = 'piped secret 7f3a';
    const created = await admin(
      server.db.url,
      ['account', 'create', '--email', 'stdin@example.com', '--plan', 'plus'],
      {},
      `${password}\nnot this line\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toMatchObject({
      plan: 'plus',
      account_id: expect.stringMatching(/^\d+$/),
    });
    expect(created.stdout + created.stderr).not.toContain(password);
    // The first line is the password: it signs in, and the next line does not.
    const login = (pw: string) =>
      call(server, 'POST', '/auth/login', { body: { email: 'stdin@example.com', password: pw } });
    expect((await login(password)).status).toBe(200);
    expect((await login('not this line')).status).toBe(401);

    // Nothing on standard input (and no terminal to ask on): refused, nothing created.
    const none = await run('account', 'create', '--email', 'nopassword@example.com');
    expect(none.code).not.toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/--password: none given; send it on standard input/);
    const found = await server.pool.query(
      `select 1 from accounts where email = 'nopassword@example.com'`,
    );
    expect(found.rowCount).toBe(0);
  });

  it('account create takes the first line of a pipe that stays open, or all of one that ends without a newline', async () => {
    // The writer sends one line and never closes its end: the command must not wait for more.
    const password = 'open pipe secret 5d2e';
    const child = spawn(
      process.execPath,
      ['bin/admin.ts', 'account', 'create', '--email', 'openpipe@example.com'],
      {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, DATABASE_URL: server.db.url },
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.on('error', () => {});
    child.stdin.write(`${password}\n`);
    try {
      expect(await exit, out).toBe(0);
    } finally {
      child.kill();
    }
    expect(out).toMatch(/"account_id":"\d+"/);
    expect(out).not.toContain(password);
    const login = (email: string, pw: string) =>
      call(server, 'POST', '/auth/login', { body: { email, password: pw } });
    expect((await login('openpipe@example.com', password)).status).toBe(200);

    // printf %s "$PASSWORD" | ...: no newline before the end, the whole input is the password.
    const unterminated = await admin(
      server.db.url,
      ['account', 'create', '--email', 'nonewline@example.com'],
      {},
      'no newline secret 0c41',
    );
    expect(unterminated.code, unterminated.stderr).toBe(0);
    expect((await login('nonewline@example.com', 'no newline secret 0c41')).status).toBe(200);
  });

  // A terminal through script(1), which gives the CLI a pty and passes what the test writes
  // on as keystrokes: the prompt is on the terminal, what is typed is not echoed.
  const terminals: ChildProcess[] = [];
  // A CLI still waiting at a prompt (a test failing) goes with its terminal: the pty's hangup.
  afterEach(() => {
    for (const t of terminals.splice(0)) if (t.exitCode === null) t.kill('SIGKILL');
  });
  const onTerminal = (args: string) => {
    const cli = `${process.execPath} bin/admin.ts ${args}`;
    const child = spawn('/usr/bin/script', ['-q', '-e', '-c', cli, '/dev/null'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATABASE_URL: server.db.url },
    });
    terminals.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    // 'close', not 'exit': what the CLI printed last has been read by then.
    const exit = new Promise((resolve) => child.once('close', resolve));
    const typed = (prompt: RegExp) =>
      waitFor(async () => prompt.test(out), { what: `the prompt ${prompt}`, detail: () => out });
    return { child, exit, typed, output: () => out };
  };
  const hasScript = existsSync('/usr/bin/script');

  it.skipIf(!hasScript)(
    'account create without --password prompts on a terminal, twice, without echoing',
    async () => {
      const password = 'typed secret 91bc';
      const tty = onTerminal('account create --email tty@example.com');
      try {
        await tty.typed(/Password: /);
        tty.child.stdin.write(`${password}\r`);
        await tty.typed(/Password again: /);
        tty.child.stdin.write(`${password}\r`);
      } finally {
        tty.child.stdin.end();
      }
      const code = await tty.exit;
      const out = tty.output();
      expect(code, out).toBe(0);
      expect(out).toMatch(/"account_id":"\d+"/);
      expect(out).not.toContain(password);
      const login = await call(server, 'POST', '/auth/login', {
        body: { email: 'tty@example.com', password },
      });
      expect(login.status).toBe(200);
    },
  );

  it.skipIf(!hasScript)(
    'on a terminal, a bad flag or a taken e-mail is refused before the password is asked for',
    async () => {
      await run('account', 'create', '--email', 'taken@example.com', '--password', 'long enough');
      for (const [args, said] of [
        ['--email new@example.com --plan premium', /error: --plan: Invalid option/],
        ['--plan plus', /error: --email is required/],
        [
          '--email TAKEN@example.com',
          /error: An account with email TAKEN@example.com already exists\./,
        ],
      ] as const) {
        const tty = onTerminal(`account create ${args}`);
        tty.child.stdin.end();
        expect(await tty.exit, tty.output()).not.toBe(0);
        expect(tty.output()).toMatch(said);
        expect(tty.output()).not.toMatch(/Password/);
      }
    },
  );

  it.skipIf(!hasScript)('two different passwords typed are refused as such', async () => {
    const tty = onTerminal('account create --email differ@example.com');
    try {
      await tty.typed(/Password: /);
      tty.child.stdin.write('first entry 1234\r');
      await tty.typed(/Password again: /);
      tty.child.stdin.write('second entry 1234\r');
    } finally {
      tty.child.stdin.end();
    }
    expect(await tty.exit).not.toBe(0);
    expect(tty.output()).toContain(
      'error: the two passwords you typed differ; nothing was created',
    );
    const found = await server.pool.query(
      `select 1 from accounts where email = 'differ@example.com'`,
    );
    expect(found.rowCount).toBe(0);
  });

  it('says which option is wrong, or missing, before reading a password', async () => {
    // Standard input holds a password: each refusal is of the flag, not of the input.
    const refused = async (args: string[], message: string) => {
      const res = await admin(
        server.db.url,
        ['account', 'create', ...args],
        {},
        'long enough pw\n',
      );
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n').at(-1)).toBe(message);
    };
    await refused(['--plan', 'plus'], 'error: --email is required');
    await refused(
      ['--email', 'premium@example.com', '--plan', 'premium'],
      'error: --plan: Invalid option: expected one of "free"|"plus"|"pro"|"business"',
    );
    const found = await server.pool.query(
      `select 1 from accounts where email = 'premium@example.com'`,
    );
    expect(found.rowCount).toBe(0);
  });

  it("takes sign-up's minimum of 10 characters, from the flag and from standard input", async () => {
    const nine = 'nine char';
    const flag = await run('account', 'create', '--email', 'nine@example.com', '--password', nine);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr.trim().split('\n').at(-1)).toBe(
      'error: --password: use at least 10 characters',
    );
    const piped = await admin(
      server.db.url,
      ['account', 'create', '--email', 'nine@example.com'],
      {},
      `${nine}\n`,
    );
    expect(piped.code).not.toBe(0);
    expect(piped.stderr.trim().split('\n').at(-1)).toBe(
      'error: the password: use at least 10 characters',
    );
    const ten = await run(
      'account',
      'create',
      '--email',
      'ten@example.com',
      '--password',
      'ten chars!',
    );
    expect(ten.code, ten.stderr).toBe(0);
  });

  it('says on standard error which database it used, never its password', async () => {
    const res = await run('key', 'list', '--email', 'nobody@example.com');
    const url = new URL(server.db.url);
    expect(res.stderr.split('\n')[0]).toBe(`database: DATABASE_URL (${url.host}${url.pathname})`);
    expect(res.stderr).not.toContain(decodeURIComponent(url.password));
  });

  // Two runs on a data folder of their own, each starting (and stopping) its embedded Postgres.
  it('without DATABASE_URL, names the data folder and says when it made a new database there', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-cli-data-'));
    try {
      const first = await admin(
        '',
        ['account', 'create', '--email', 'fresh@example.com', '--password', 'long enough'],
        { DATA_DIR: dataDir },
      );
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).not.toMatch(/database/);
      expect(first.stderr.split('\n')[0]).toBe(
        `database: created the embedded PostgreSQL in ${dataDir}/pg, new and empty. The ` +
          'service uses it only when started with the same DATA_DIR (default ./data of the ' +
          'folder it starts in): if npm start runs elsewhere, run this command from its folder ' +
          'or with its DATA_DIR',
      );
      const again = await admin('', ['key', 'list', '--email', 'fresh@example.com'], {
        DATA_DIR: dataDir,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.json).toEqual({ keys: [] });
      expect(again.stderr.split('\n')[0]).toBe(
        `database: the embedded PostgreSQL in ${dataDir}/pg, started`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('connect names a bad or missing --config field before any platform is called', async () => {
    const acct = await makeAccount(server.pool);
    const cases: [string, unknown, string][] = [
      ['bluesky', { identifier: 'brand.example' }, 'error: --config: app_password is required'],
      [
        'mastodon',
        { instance: 'ftp://instance.example', access_token: 'token' },
        'error: --config: instance: Invalid URL',
      ],
      ['bluesky', [], 'error: --config: Invalid input: expected object, received array'],
    ];
    for (const [platform, config, message] of cases) {
      const res = await admin(server.db.url, connectArgs(acct, platform, config));
      expect(res.code, message).not.toBe(0);
      expect(res.stderr.trim().split('\n').at(-1)).toBe(message);
    }
    const { rows } = await server.pool.query(
      'select count(*)::int as n from connected_accounts where account_id = $1',
      [acct.accountId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('connect refuses a --config key the platform does not take, naming the ones it does', async () => {
    const acct = await makeAccount(server.pool);
    const cases: [string, unknown, string][] = [
      [
        'mastodon',
        { instance: 'https://instance.example', acces_token: 'token' },
        'error: --config: unknown key "acces_token"; mastodon takes instance, access_token',
      ],
      [
        'bluesky',
        { identifier: 'brand.example', app_password: 'app-password', pasword: 'x', pds: 'y' },
        'error: --config: unknown key "pasword", "pds"; bluesky takes service, identifier, app_password',
      ],
    ];
    for (const [platform, config, message] of cases) {
      const res = await admin(server.db.url, connectArgs(acct, platform, config));
      expect(res.code, message).not.toBe(0);
      expect(res.stderr.trim().split('\n').at(-1)).toBe(message);
    }
    const { rows } = await server.pool.query(
      'select count(*)::int as n from connected_accounts where account_id = $1',
      [acct.accountId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('refuses a second account with the same e-mail', async () => {
    await run('account', 'create', '--email', 'dup@example.com', '--password', 'long enough');
    const again = await run(
      'account',
      'create',
      '--email',
      'DUP@example.com',
      '--password',
      'long enough',
    );
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already exists/);
  });
});
