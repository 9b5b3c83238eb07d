// Brand memory through REST (GET/PATCH /v1/brand-memory) and MCP (get_brand_memory,
// update_brand_memory, with the SDK's client): a brand's document starts empty at version 1
// with every section a gap; a patch applies its RFC 6902 ops in order, skipping and reporting
// those that fail or make a document the schema refuses, as one new version; a stale
// expected_version changes nothing, and of two patches from one version exactly one wins.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_SECTIONS } from '../../core/brandMemory/schema.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { useService } from '../support/service.ts';

const svc = useService({ account: { scopes: ['read', 'generate'] } });
let readKey: string;
let client: Client;

beforeAll(async () => {
  readKey = await makeKey(svc.server.pool, svc.acct.accountId, ['read']);
  client = await connectMcp(svc.server, svc.key, 'memory-test');
});
afterAll(() => client.close());

/** A brand of its own for a test, so tests do not share versions. */
async function freshBrand(): Promise<string> {
  const { rows } = await svc.server.pool.query<{ id: string }>(
    `insert into brands (account_id, name, timezone) values ($1, 'Memory test', 'UTC')
     returning id::text`,
    [svc.acct.accountId],
  );
  return rows[0]!.id;
}

const read = (brand_id: string, key = svc.key) =>
  call(svc.server, 'GET', `/v1/brand-memory?brand_id=${brand_id}`, { key });
const patch = (body: Record<string, unknown>, key = svc.key) =>
  call(svc.server, 'PATCH', '/v1/brand-memory', { key, body });

describe('GET /v1/brand-memory', () => {
  it("answers a new brand's empty memory at version 1, every section a gap", async () => {
    const brand_id = await freshBrand();
    const res = await read(brand_id, readKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ brand_id, doc: {}, version: 1 });
    expect(res.body.confidence.overall).toBe(0);
    expect(res.body.gaps.map((g: { section: string }) => g.section)).toEqual([...MEMORY_SECTIONS]);
    expect(Date.parse(res.body.updated_at)).not.toBeNaN();
    // The selected brand when none is named.
    const selected = await call(svc.server, 'GET', '/v1/brand-memory', { key: readKey });
    expect(selected.body.brand_id).toBe(svc.acct.brandId);
  });

  it("answers 404 for another account's brand", async () => {
    const other = await makeAccount(svc.server.pool);
    const res = await read(other.brandId);
    expect(res.status).toBe(404);
  });
});

describe('PATCH /v1/brand-memory', () => {
  it('applies ops in order, skips and reports the failing ones, as one version', async () => {
    const brand_id = await freshBrand();
    const res = await patch({
      brand_id,
      expected_version: 1,
      ops: [
        { op: 'add', path: '/voice', value: { tone: ['warm', 'direct'], persona: 'A baker' } },
        { op: 'add', path: '/hashtags', value: { always: ['#bread'] } },
        // Its parent does not exist: skipped.
        { op: 'add', path: '/vocabulary/banned/-', value: 'cheap' },
        // A test that fails: skipped, and what follows still applies.
        { op: 'test', path: '/voice/persona', value: 'A butcher' },
        // A result the schema refuses (an unknown key): skipped.
        { op: 'add', path: '/voice/mood', value: 'sunny' },
        { op: 'add', path: '/voice/tone/-', value: 'playful' },
        { op: 'add', path: '/__proto__/polluted', value: true },
        { op: 'move', from: '/voice', path: '/voice/tone' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      version: 2,
      refused: 5,
      doc: {
        voice: { tone: ['warm', 'direct', 'playful'], persona: 'A baker' },
        hashtags: { always: ['#bread'] },
      },
    });
    expect(res.body.refusals.map((r: { index: number }) => r.index)).toEqual([2, 3, 4, 6, 7]);
    expect(res.body.refusals[3].reason).toBe(
      'paths through __proto__, constructor or prototype are refused',
    );
    expect(res.body.refusals[4].reason).toMatch(/cannot move into itself/);
    expect(res.body.refusals[0].reason).toMatch(/cannot be added: its parent does not exist/);
    expect(res.body.refusals[1].reason).toMatch(/test failed/);
    expect(res.body.refusals[2].reason).toMatch(/refused at \/voice/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // What was written is stated: full confidence there, and those sections are no gaps.
    expect(res.body.confidence.sections).toMatchObject({ voice: 1, hashtags: 1, audience: 0 });
    expect(res.body.confidence.overall).toBeCloseTo(2 / MEMORY_SECTIONS.length, 2);
    const gaps = res.body.gaps.map((g: { section: string }) => g.section);
    expect(gaps).not.toContain('voice');
    expect(gaps).toContain('audience');
    expect((await read(brand_id)).body).toMatchObject({ version: 2, doc: res.body.doc });
  });

  it('changes nothing for a stale expected_version, or when every op is refused', async () => {
    const brand_id = await freshBrand();
    const first = await patch({
      brand_id,
      expected_version: 1,
      ops: [{ op: 'add', path: '/platforms', value: ['bluesky'] }],
    });
    expect(first.body.version).toBe(2);
    const stale = await patch({
      brand_id,
      expected_version: 1,
      ops: [{ op: 'replace', path: '/platforms', value: ['x'] }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', current_version: 2 });
    const refused = await patch({
      brand_id,
      expected_version: 2,
      ops: [{ op: 'remove', path: '/audience' }],
    });
    expect(refused.body).toMatchObject({ version: 2, refused: 1 });
    expect((await read(brand_id)).body).toMatchObject({
      version: 2,
      doc: { platforms: ['bluesky'] },
    });
  });

  it('of two patches from one version, exactly one wins', async () => {
    const brand_id = await freshBrand();
    const both = await Promise.all(
      ['x', 'mastodon'].map((p) =>
        patch({
          brand_id,
          expected_version: 1,
          ops: [{ op: 'add', path: '/platforms', value: [p] }],
        }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await read(brand_id)).body.version).toBe(2);
  });

  it('refuses bad requests with a 422 naming the field, and a read key with 403', async () => {
    const brand_id = await freshBrand();
    const ops = (n: number) =>
      Array.from({ length: n }, () => ({ op: 'test', path: '/version', value: 1 }));
    const tooMany = await patch({ brand_id, expected_version: 1, ops: ops(41) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toMatchObject({ loc: ['body', 'ops'] });
    const noValue = await patch({
      brand_id,
      expected_version: 1,
      ops: [{ op: 'add', path: '/platforms' }],
    });
    expect(noValue.status).toBe(422);
    expect(noValue.body.detail[0]).toMatchObject({
      loc: ['body', 'ops', 0, 'value'],
      msg: 'required by op add',
    });
    const badPointer = await patch({
      brand_id,
      expected_version: 1,
      ops: [{ op: 'remove', path: 'voice' }],
    });
    expect(badPointer.body.detail[0].loc).toEqual(['body', 'ops', 0, 'path']);
    const zero = await patch({ brand_id, expected_version: 0, ops: ops(1) });
    expect(zero.status).toBe(422);
    const readOnly = await patch({ brand_id, expected_version: 1, ops: ops(1) }, readKey);
    expect(readOnly.status).toBe(403);
    expect((await read(brand_id)).body.version).toBe(1);
  });
});

describe('MCP get_brand_memory and update_brand_memory', () => {
  type Reply = { isError?: boolean; content: { text?: string }[]; structuredContent?: any };
  const tool = async (name: string, args: Record<string, unknown>, c = client) =>
    (await c.callTool({ name, arguments: args })) as Reply;

  it('read and patch the same memory as REST', async () => {
    const brand_id = await freshBrand();
    const got = await tool('get_brand_memory', { brand_id });
    expect(got.structuredContent).toMatchObject({ brand_id, version: 1, doc: {} });
    const updated = await tool('update_brand_memory', {
      brand_id,
      expected_version: 1,
      ops: [
        { op: 'add', path: '/vocabulary', value: { banned: ['cheap'] } },
        { op: 'remove', path: '/links' },
      ],
    });
    expect(updated.isError, updated.content[0]?.text).toBeFalsy();
    expect(updated.structuredContent).toMatchObject({ version: 2, refused: 1 });
    expect((await read(brand_id)).body.doc).toEqual({ vocabulary: { banned: ['cheap'] } });
    const stale = await tool('update_brand_memory', {
      brand_id,
      expected_version: 1,
      ops: [{ op: 'remove', path: '/vocabulary' }],
    });
    expect(stale.content[0]?.text).toMatch(/^version_conflict: .*current one is 2/);
  });

  it('lists update_brand_memory only for a key with the generate scope', async () => {
    const readOnly = await connectMcp(svc.server, readKey, 'memory-read');
    try {
      const names = (await readOnly.listTools()).tools.map((t) => t.name);
      expect(names).toContain('get_brand_memory');
      expect(names).not.toContain('update_brand_memory');
    } finally {
      await readOnly.close();
    }
  });
});
