// Drawings stored (core/drawings/): every bound at and over its limit, refused not cut, with
// unknown keys refused; strokes given stable sids; updates by replacement or by sids added and
// removed, under expected_version (of two concurrent updates from one version exactly one
// wins, and a stale one changes nothing); another account's drawing or brand not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateDrawingInput,
  MAX_DRAWING_POINTS,
  MAX_STROKE_POINTS,
  MAX_STROKES,
  UpdateDrawingInput,
} from '../../core/drawings/schema.ts';
import {
  createDrawing,
  getDrawing,
  listBrandDrawings,
  updateDrawing,
} from '../../core/drawings/service.ts';
import { DomainError } from '../../core/kernel/errors.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { makeAccount, type TestAccount } from '../support/server.ts';

let db: TestDatabase;
let a: TestAccount;
let b: TestAccount;
const caller = (acct: TestAccount) => ({
  accountId: acct.accountId,
  selectedBrandId: acct.brandId,
  credential: { kind: 'api_key' as const, id: '1' },
});
beforeAll(async () => {
  db = await freshDatabase();
  a = await makeAccount(db.pool);
  b = await makeAccount(db.pool);
});
afterAll(() => db.drop());

const dot = (x: number, y: number): [number, number] => [x, y];
const points = (n: number) => Array.from({ length: n }, (_, i) => dot(i % 100, 10));
const create = (fields: Record<string, unknown>, who = a) =>
  createDrawing(
    db.pool,
    caller(who) as never,
    CreateDrawingInput.parse({ title: 'Sketch', width: 800, height: 600, ...fields }),
  );
const issuesOf = (input: unknown) => {
  const parsed = CreateDrawingInput.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const base = { title: 'Sketch', width: 800, height: 600 };

describe('bounds', () => {
  it('takes each limit exactly and refuses one more, naming it', () => {
    expect(issuesOf({ ...base, width: 4096, height: 4096 })).toEqual([]);
    expect(issuesOf({ ...base, width: 4097 })[0]).toMatch(/^width: /);
    const strokes = (n: number, each: number) =>
      Array.from({ length: n }, () => ({ points: points(each) }));
    expect(issuesOf({ ...base, strokes: strokes(MAX_STROKES, 1) })).toEqual([]);
    expect(issuesOf({ ...base, strokes: strokes(MAX_STROKES + 1, 1) })[0]).toMatch(
      /at most 2,000 strokes/,
    );
    expect(issuesOf({ ...base, strokes: strokes(1, MAX_STROKE_POINTS) })).toEqual([]);
    expect(issuesOf({ ...base, strokes: strokes(1, MAX_STROKE_POINTS + 1) })[0]).toMatch(
      /^strokes\.0\.points: at most 5,000 points a stroke/,
    );
    const full = strokes(MAX_DRAWING_POINTS / MAX_STROKE_POINTS, MAX_STROKE_POINTS);
    expect(issuesOf({ ...base, strokes: full })).toEqual([]);
    expect(issuesOf({ ...base, strokes: [...full, { points: points(1) }] })[0]).toMatch(
      /^strokes\.40\.points: at most 200,000 points a drawing; with this stroke it holds 200,001/,
    );
  });

  it('refuses unknown keys, bad colours, pressure out of 0-1 and an unknown tool', () => {
    expect(issuesOf({ ...base, colour: '#fff' })[0]).toMatch(/colour/);
    expect(issuesOf({ ...base, strokes: [{ points: [[1, 2]], tip: 3 }] })[0]).toMatch(/tip/);
    expect(issuesOf({ ...base, background: 'red' }).length).toBeGreaterThan(0);
    expect(issuesOf({ ...base, strokes: [{ points: [[1, 2, 1.5]] }] })[0]).toMatch(/points/);
    expect(issuesOf({ ...base, strokes: [{ points: [[1, 2]], tool: 'spray' }] })[0]).toMatch(
      /tool/,
    );
  });
});

describe('create and read', () => {
  it('stores the drawing under the brand with a sid on every stroke, at version 1', async () => {
    const made = await create({
      strokes: [{ points: [dot(1, 2), dot(3, 4)] }, { sid: 'mine', points: [dot(5, 6)] }],
    });
    expect(made).toMatchObject({ brand_id: a.brandId, version: 1, background: 'transparent' });
    expect(made.strokes[0]!.sid).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(made.strokes[1]!.sid).toBe('mine');
    expect(await getDrawing(db.pool, caller(a) as never, made.id)).toMatchObject({
      ...made,
      stroke_count: made.strokes.length,
      next_stroke_offset: null,
    });
    const listed = await listBrandDrawings(db.pool, caller(a) as never, { offset: 0, limit: 50 });
    expect(listed.drawings.map((d) => d.id)).toContain(made.id);
  });

  it("answers not found for another account's drawing and brand", async () => {
    const made = await create({});
    await expect(getDrawing(db.pool, caller(b) as never, made.id)).rejects.toMatchObject({
      status: 404,
    });
    await expect(create({ brand_id: a.brandId }, b)).rejects.toMatchObject({ status: 404 });
    const listed = await listBrandDrawings(db.pool, caller(b) as never, { offset: 0, limit: 50 });
    expect(listed.drawings.map((d) => d.id)).not.toContain(made.id);
  });
});

describe('update_drawing', () => {
  const update = (fields: Record<string, unknown>, who = a) =>
    updateDrawing(db.pool, caller(who) as never, UpdateDrawingInput.parse(fields));

  it('adds and removes strokes by sid as one new version', async () => {
    const made = await create({
      strokes: [
        { sid: 'a', points: [dot(1, 1)] },
        { sid: 'b', points: [dot(2, 2)] },
      ],
    });
    const next = await update({
      drawing_id: made.id,
      expected_version: 1,
      remove_strokes: ['a'],
      add_strokes: [{ sid: 'c', points: [dot(3, 3)] }],
    });
    expect(next.version).toBe(2);
    expect(next.strokes.map((s) => s.sid)).toEqual(['b', 'c']);
    // A sid that is there already, or one that is not there to remove: refused, nothing saved.
    await expect(
      update({
        drawing_id: made.id,
        expected_version: 2,
        add_strokes: [{ sid: 'b', points: [dot(1, 1)] }],
      }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      update({ drawing_id: made.id, expected_version: 2, remove_strokes: ['zz'] }),
    ).rejects.toMatchObject({ status: 422 });
    expect((await getDrawing(db.pool, caller(a) as never, made.id)).version).toBe(2);
  });

  it('of two concurrent updates from one version, exactly one wins; the stale one changes nothing', async () => {
    const made = await create({});
    const results = await Promise.allSettled(
      ['first', 'second'].map((title) =>
        update({ drawing_id: made.id, expected_version: 1, title }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(DomainError);
    expect(lost[0]!.reason).toMatchObject({ status: 409, code: 'version_conflict' });
    const now = await getDrawing(db.pool, caller(a) as never, made.id);
    expect(now.version).toBe(2);
    expect(now.title).toBe((won[0] as PromiseFulfilledResult<{ title: string }>).value.title);
  });

  it('refuses a replacement together with added strokes, and an update over the point limit', async () => {
    expect(
      UpdateDrawingInput.safeParse({
        drawing_id: '1',
        expected_version: 1,
        strokes: [],
        add_strokes: [],
      }).success,
    ).toBe(false);
    const made = await create({
      strokes: Array.from({ length: 40 }, () => ({ points: points(MAX_STROKE_POINTS) })),
    });
    await expect(
      update({ drawing_id: made.id, expected_version: 1, add_strokes: [{ points: [dot(1, 1)] }] }),
    ).rejects.toMatchObject({ status: 422 });
    expect((await getDrawing(db.pool, caller(a) as never, made.id)).version).toBe(1);
  });

  it("answers not found for another account's drawing", async () => {
    const made = await create({});
    await expect(
      update({ drawing_id: made.id, expected_version: 1, title: 'x' }, b),
    ).rejects.toMatchObject({ status: 404 });
  });
});
