// Every documented response can be sent: each route's response schemas, taken from the app as
// it is built, serialize a representative value of each shape they allow (every layer kind of a
// layout among them) through the serializer the app uses. A schema that cannot encode (a
// one-way transform, as the layout's asset_id once was) fails here instead of answering 500
// after the change it reports was saved.
import { serializerCompiler } from 'fastify-type-provider-zod';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { useDesignService } from '../support/designService.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import type { TestServer } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';
import { samplesOf } from '../support/zodSamples.ts';

const LAYER_KINDS = ['text', 'image', 'shape', 'doodle'];

const svc = useDesignService();
let server: TestServer;
beforeAll(() => ({ server } = svc));

const isZod = (s: unknown): s is z.ZodType =>
  typeof s === 'object' && s !== null && '_zod' in (s as object);

describe('every route serializes every response it documents', () => {
  it('for a representative value of each shape, every layer kind included', () => {
    const withLayers: string[] = [];
    let checked = 0;
    for (const route of server.app.routes) {
      const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
      for (const [status, schema] of Object.entries(responses)) {
        if (!isZod(schema)) continue;
        const where = `${route.method} ${route.url} ${status}`;
        const serialize = serializerCompiler({
          schema,
          method: String(route.method),
          url: route.url,
          httpStatus: status,
        });
        const samples = samplesOf(schema);
        expect(samples.length, `${where}: no representative value`).toBeGreaterThan(0);
        const sent = samples.map((sample) => {
          try {
            return serialize(sample);
          } catch (err) {
            const cause = (err as { cause?: Error }).cause;
            throw new Error(`${where} cannot serialize: ${cause?.message ?? err}`);
          }
        });
        checked += sent.length;
        const all = sent.join('\n');
        // A layout (its canvas and layers), not a list of layer summaries (get_layers' view).
        if (all.includes('"layers"') && all.includes('"canvas"')) {
          withLayers.push(where);
          for (const kind of LAYER_KINDS)
            expect(all, `${where}: no ${kind} layer serialized`).toContain(`"kind":"${kind}"`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    // The design edit answers a layout: it was walked.
    expect(withLayers).toContain('PATCH /v1/posts/:post_id/design 200');
  });
});

describe('PATCH /v1/posts/{id}/design', () => {
  it('answers 200 with the layout for a layer of each kind, image included', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'media']);
    const asset = await uploadPng(server, key, { width: 64, height: 64 }, '#336699');
    const created = await call(server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Caption',
        brand_id: acct.brandId,
        layout: { layers: [{ kind: 'text', text: 'One', x: 10, y: 10, w: 500 }] },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const layers = [
      { kind: 'text', text: 'Two', x: 10, y: 10, w: 500 },
      { kind: 'image', asset_id: asset, x: 0, y: 0, w: 540, h: 540 },
      { kind: 'shape', shape: 'ellipse', x: 600, y: 600, w: 200, h: 200, fill: '#e4572e' },
      {
        kind: 'doodle',
        x: 100,
        y: 800,
        w: 300,
        strokes: [
          {
            points: [
              [0, 0],
              [100, 50],
            ],
          },
        ],
      },
    ];
    const res = await call(server, 'PATCH', `/v1/posts/${created.body.id}/design`, {
      key,
      body: { layout: { layers }, layout_version: 1 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.layout_version).toBe(2);
    expect(res.body.layout.layers.map((l: { kind: string }) => l.kind)).toEqual(LAYER_KINDS);
    expect(res.body.layout.layers[1].asset_id).toBe(asset);
  });
});
