// The OpenAPI document says what the routes really take and answer: raw bodies and bytes as
// binary, the 400/413/415 any route can answer, and an example per operation that fits the
// operation's own schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/server.ts';
import { useServer } from '../support/service.ts';

type Media = { schema?: Record<string, unknown>; example?: unknown };
type Op = {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

const server = useServer();
let operations: [string, string, Op][];
beforeAll(async () => {
  const res = await call(server, 'GET', '/openapi.json');
  expect(res.status).toBe(200);
  operations = Object.entries(res.body.paths as Record<string, Record<string, Op>>).flatMap(
    ([path, item]) =>
      Object.entries(item).map(([method, op]) => [method, path, op] as [string, string, Op]),
  );
});

const op = (method: string, path: string) =>
  operations.find(([m, p]) => m === method && p === path)![2];
/** Every media type of an operation, with where it sits. */
const mediaOf = (o: Op): [string, Media][] => [
  ...Object.values(o.requestBody?.content ?? {}).map((m) => ['request', m] as [string, Media]),
  ...Object.entries(o.responses).flatMap(([status, r]) =>
    Object.values(r.content ?? {}).map((m) => [status, m] as [string, Media]),
  ),
];

describe('the OpenAPI document', () => {
  it('declares raw upload bodies as binary, with the media types they take', () => {
    const upload = op('post', '/v1/assets/upload').requestBody!.content;
    expect(Object.keys(upload)).toEqual(['image/*']);
    expect(upload['image/*']!.schema).toMatchObject({ type: 'string', format: 'binary' });
    const part = op('put', '/v1/assets/upload/part').requestBody!.content;
    expect(part['application/octet-stream']!.schema).toMatchObject({ format: 'binary' });
  });

  it('declares byte answers as binary, never as JSON', () => {
    for (const [path, types] of [
      ['/v1/assets/{asset_id}/content', ['image/*', 'video/*', 'audio/*']],
      ['/v1/assets/{asset_id}/thumbnail', ['image/webp']],
      ['/media/{asset_id}', ['image/*', 'video/*', 'audio/*']],
      ['/media/platform/{asset_id}', ['image/*', 'video/*']],
      ['/design-templates/{name}/thumbnail.png', ['image/png']],
    ] as const) {
      const ok = op('get', path).responses['200']!.content!;
      expect(Object.keys(ok), path).toEqual(types);
      for (const type of types) expect(ok[type]!.schema).toMatchObject({ format: 'binary' });
    }
  });

  it('lists 400 on every operation, and 413 and 415 wherever a body can be sent', () => {
    expect(operations.length).toBeGreaterThan(25);
    for (const [method, path, o] of operations) {
      const statuses = Object.keys(o.responses);
      expect(statuses, `${method} ${path}`).toContain('400');
      if (method !== 'get')
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('gives every operation an example, and every example fits its schema', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [method, path, o] of operations) {
      const examples = mediaOf(o).filter(([, m]) => m.example !== undefined);
      expect(examples.length, `${method} ${path} has no example`).toBeGreaterThan(0);
      for (const [where, m] of examples) {
        const validate = ajv.compile(m.schema ?? {});
        expect(
          validate(m.example),
          `${method} ${path} ${where}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
      }
    }
  });
});
