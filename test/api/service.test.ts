// Health, readiness and the OpenAPI document of a running server.
import { describe, expect, it } from 'vitest';
import { call } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer();

describe('health', () => {
  it('/healthz answers while alive and /readyz once migrations are applied', async () => {
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });

  it('/readyz answers 503 when migrations are missing', async () => {
    const { rows } = await server.pool.query(
      'delete from schema_migrations where version = (select max(version) from schema_migrations) returning version, name',
    );
    const res = await call(server, 'GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/migrations pending/);
    await server.pool.query('insert into schema_migrations (version, name) values ($1, $2)', [
      rows[0].version,
      rows[0].name,
    ]);
  });
});

describe('OpenAPI', () => {
  it('documents the REST and session routes from the zod schemas', async () => {
    const res = await call(server, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    const me = doc.paths['/v1/me'].get;
    expect(me.security).toEqual([{ bearer: [] }]);
    expect(me.responses['200'].content['application/json'].schema.properties.plan.enum).toEqual([
      'free',
      'plus',
      'pro',
      'business',
    ]);
    const createKey = doc.paths['/apikeys'].post.requestBody.content['application/json'].schema;
    expect(createKey.properties.scopes.items.enum).toContain('engage');
    expect(createKey.additionalProperties).toBe(false);
    expect(doc.paths['/healthz']).toBeUndefined();
    const create = doc.paths['/v1/posts'].post;
    const input = create.requestBody.content['application/json'].schema;
    expect(input.required).toEqual(['platform', 'body']);
    expect(input.properties.platform.enum).toContain('bluesky');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '422']));
    const list = doc.paths['/v1/posts'].get.parameters.map((p: any) => p.name);
    expect(list).toEqual(['status_filter', 'limit', 'brand_id']);
    expect(doc.paths['/v1/posts/{post_id}/reject'].post.responses['409']).toBeDefined();
    const design = doc.paths['/v1/posts/{post_id}/design'].patch;
    expect(Object.keys(design.responses)).toEqual(expect.arrayContaining(['200', '409', '422']));
    const edit = design.requestBody.content['application/json'].schema;
    expect(Object.keys(edit.properties ?? edit.anyOf[0].properties)).toEqual(
      expect.arrayContaining(['template', 'layout', 'layout_version', 'only_this_post']),
    );
    expect(input.properties.design_id).toBeDefined();
    expect(doc.paths['/design-templates/{name}/thumbnail.png'].get).toBeDefined();
  });

  it('serves a docs page at /docs', async () => {
    const res = await fetch(`${server.baseUrl}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/swagger/i);
  });
});
