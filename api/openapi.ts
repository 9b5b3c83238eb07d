// What the OpenAPI document says beyond the routes' zod schemas: raw bodies and answers are
// binary (the routes read and send streams, so they have no zod body), the 400/413/415 any
// route can answer, and one example per operation. Applied to the generated document by
// @fastify/swagger's transformObject; test/api/openapi.test.ts checks every operation.
import { z } from 'zod';
import { PLANS } from '../core/kernel/plans.ts';
import { PUBLISHING_PLATFORMS } from '../core/kernel/platforms.ts';
import { ErrorBody } from './rest/schemas.ts';

type Json = Record<string, unknown>;
type MediaType = { schema?: unknown; example?: unknown };
type Answer = { description: string; content?: Record<string, MediaType> };
type Operation = {
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, Answer>;
};
type Document = { paths?: Record<string, Record<string, Operation | undefined>> };

const binary = { type: 'string', format: 'binary' };
const { $schema: _, ...error } = z.toJSONSchema(ErrorBody, { io: 'output' });

/** Raw request bodies, by operation. */
const BINARY_BODIES: Record<string, Record<string, string>> = {
  'POST /v1/assets/upload': {
    'image/*': 'The image bytes with their own type: image/jpeg, png, webp, gif or avif.',
  },
  'PUT /v1/assets/upload/part': {
    'application/octet-stream': 'Chunk `index` of the file: part_bytes, the last one the rest.',
  },
};

/** Binary answers (status 200), by operation: media type → what it holds. */
const BINARY_ANSWERS: Record<string, Record<string, string>> = {
  'GET /v1/assets/{asset_id}/content': {
    'image/*': 'An image asset, with its probed media type.',
    'video/*': 'A video asset.',
    'audio/*': 'An audio asset.',
  },
  'GET /v1/assets/{asset_id}/thumbnail': { 'image/webp': 'A 320 px wide WebP.' },
  'GET /media/{asset_id}': {
    'image/*': 'An image asset, with its probed media type.',
    'video/*': 'A video asset.',
    'audio/*': 'An audio asset.',
  },
  'GET /media/platform/{asset_id}': {
    'image/*': 'An image asset, with its probed media type.',
    'video/*': 'A video asset.',
  },
  'GET /design-templates/{name}/thumbnail.png': { 'image/png': 'A 320 px wide PNG.' },
};

const at = '2026-05-04T09:00:00.000Z';
const brand = {
  id: '1',
  uuid: '6f1c2a4e-3b7d-4c8e-9a1f-2d3e4f5a6b7c',
  name: 'Acme',
  timezone: 'Europe/Paris',
};
const account = {
  account: {
    id: '1',
    email: 'you@example.com',
    plan: 'plus',
    features: [],
    credits: '100',
  },
  brands: [brand],
  selected_brand_id: '1',
  plans: [...PLANS],
  platforms: [...PUBLISHING_PLATFORMS],
};
const receipt = {
  id: '42',
  uuid: '0d9f6c1e-8a7b-4c3d-9e2f-1a2b3c4d5e6f',
  platform: 'bluesky',
  kind: 'text',
  status: 'draft',
  body: 'Launch day: the new editor is live.',
  hashtags: '#launch',
  scheduled_for: null,
  brand_id: '1',
  asset_ids: [],
  created_at: at,
};
const post = {
  ...receipt,
  headline: null,
  brand_uuid: brand.uuid,
  design_id: null,
  source_id: null,
  suggested_for: null,
  favorited_at: at,
  approved_at: null,
  rejection: null,
  external_post_id: null,
  permalink_url: null,
  published_at: null,
  error: null,
  updated_at: at,
};
const layout = {
  canvas: { aspect: 'square', bg: '#ffffff' },
  layers: [
    {
      kind: 'text',
      cid: 'headline',
      x: 80,
      y: 400,
      w: 920,
      text: 'Launch day',
      size: 96,
      weight: 'bold',
    },
  ],
};
/** The same layout as stored and answered: every default filled in. */
const storedLayout = {
  canvas: layout.canvas,
  layers: [
    {
      ...layout.layers[0],
      rotation: 0,
      opacity: 1,
      font: 'Inter',
      color: '#111111',
      align: 'left',
      line_height: 1.2,
      fit: 'clip',
      valign: 'top',
    },
  ],
};
const asset = {
  id: '7',
  kind: 'image',
  mime: 'image/jpeg',
  bytes: 482113,
  width: 1600,
  height: 1200,
  duration_s: null,
  filename: 'team.jpg',
  alt_text: 'The team at the launch',
  brand_id: '1',
  sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  url: 'https://social.example.com/v1/assets/7/content',
  signed_url: 'https://social.example.com/media/7?expires=1777885200&sig=3q2-7w',
  thumbnail_url: 'https://social.example.com/v1/assets/7/thumbnail',
  created_at: at,
};

const memory = {
  brand_id: '1',
  doc: {
    voice: { tone: ['warm', 'direct'], persona: 'A neighbourhood bakery' },
    vocabulary: { banned: [] as string[] },
    hashtags: { always: ['#bread'] },
  },
  version: 3,
  confidence: {
    overall: 0.33,
    sections: {
      voice: 1,
      vocabulary: 1,
      hashtags: 1,
      audience: 0,
      pillars: 0,
      visual: 0,
      links: 0,
      examples: 0,
      platforms: 0,
    },
  },
  gaps: [{ section: 'audience', hint: 'describe who the posts are for (/audience/description)' }],
  updated_at: at,
};

/**
 * One example per operation: `request` for its JSON body, `answer` for its main answer (JSON),
 * or `error` with a status when it answers no JSON body (204, bytes).
 */
const EXAMPLES: Record<string, { request?: unknown; answer?: unknown; error?: [number, Json] }> = {
  'POST /auth/login': {
    request: { email: 'you@example.com', password: 'a long password' },
    answer: account,
  },
  'POST /auth/logout': {
    error: [401, { detail: 'Sign in first.', code: 'unauthenticated' }],
  },
  'GET /auth/session': { answer: account },
  'PUT /auth/session/brand': {
    request: { brand_id: '1' },
    answer: { selected_brand_id: '1', brand },
  },
  'POST /apikeys': {
    request: { name: 'scheduler', scopes: ['read', 'publish'] },
    answer: {
      id: '3',
      name: 'scheduler',
      scopes: ['read', 'publish'],
      key: 'sps_4fJ2kq9XvR1mT8bW0cYzLp3sNd6HuE7a',
      created_at: at,
    },
  },
  'GET /apikeys': {
    answer: [
      {
        id: '3',
        name: 'scheduler',
        scopes: ['read', 'publish'],
        created_at: at,
        last_used_at: null,
      },
    ],
  },
  'DELETE /apikeys/{id}': { error: [404, { detail: 'No API key 3.', code: 'not_found' }] },
  'POST /webhooks': {
    request: { url: 'https://hooks.example.com/social', events: ['post.published'] },
    answer: {
      id: '5',
      url: 'https://hooks.example.com/social',
      events: ['post.published'],
      created_at: at,
      secret: 'whsec_9sV2mQ7xL4tR8kP1nB6cZ3yW0',
    },
  },
  'GET /webhooks': {
    answer: [
      {
        id: '5',
        url: 'https://hooks.example.com/social',
        events: ['post.published'],
        created_at: at,
      },
    ],
  },
  'DELETE /webhooks/{id}': { error: [404, { detail: 'No webhook 5.', code: 'not_found' }] },
  'GET /webhooks/{id}/deliveries': {
    answer: [
      {
        delivery_id: '11',
        event: 'post.published',
        attempt: 1,
        attempted_at: at,
        duration_ms: 84,
        status_code: 204,
        error: null,
        delivery_status: 'delivered',
        replay_of: null,
      },
    ],
  },
  'POST /webhooks/{id}/deliveries/{delivery_id}/replay': { answer: { delivery_id: '12' } },
  'GET /media/{asset_id}': {
    error: [404, { detail: 'This media address is invalid or expired.', code: 'not_found' }],
  },
  'GET /design-templates/{name}/thumbnail.png': {
    error: [404, { detail: 'No design template "neon".', code: 'not_found' }],
  },
  'GET /v1/me': {
    answer: { email: 'you@example.com', plan: 'plus', scopes: ['read', 'publish'] },
  },
  'GET /v1/posts': { answer: [post] },
  'POST /v1/posts': {
    request: {
      platform: 'bluesky',
      body: 'Launch day: the new editor is live.',
      hashtags: '#launch',
    },
    answer: receipt,
  },
  'POST /v1/posts/{post_id}/favorite': { answer: post },
  'DELETE /v1/posts/{post_id}/favorite': { answer: { ...post, favorited_at: null } },
  'POST /v1/posts/{post_id}/reject': {
    request: { reason: 'The date in the copy is wrong.', code: 'wrong_date' },
    answer: { id: '42', status: 'rejected' },
  },
  'PATCH /v1/posts/{post_id}/design': {
    request: { layout, layout_version: 3 },
    answer: {
      design_id: '9',
      post_id: '42',
      template: 'blank',
      layout_version: 4,
      layout: storedLayout,
      linked_post_ids: ['42'],
      media_paths: ['https://social.example.com/v1/assets/31/content'],
      render_error: null,
      render_warnings: [],
    },
  },
  'GET /v1/assets': {
    answer: {
      assets: [asset],
      next_cursor: null,
      storage: { used_bytes: 482113, reserved_bytes: 0, quota_bytes: 5368709120 },
    },
  },
  'POST /v1/assets': {
    request: { url: 'https://cdn.example.com/team.jpg', alt_text: 'The team at the launch' },
    answer: asset,
  },
  'POST /v1/assets/upload': { answer: asset },
  'POST /v1/assets/upload/init': {
    request: { filename: 'launch.mp4', size_bytes: 52428800 },
    answer: {
      upload_id: '5b1e8c3a-2f4d-4e6a-9b7c-0d1e2f3a4b5c',
      part_bytes: 8388608,
      parts: 7,
      expires_at: '2026-05-05T09:00:00.000Z',
    },
  },
  'PUT /v1/assets/upload/part': {
    answer: { upload_id: '5b1e8c3a-2f4d-4e6a-9b7c-0d1e2f3a4b5c', index: 0, bytes: 8388608 },
  },
  'POST /v1/assets/upload/finish': {
    request: { upload_id: '5b1e8c3a-2f4d-4e6a-9b7c-0d1e2f3a4b5c', parts: 7 },
    answer: {
      ...asset,
      id: '8',
      kind: 'video',
      mime: 'video/mp4',
      bytes: 52428800,
      width: 1920,
      height: 1080,
      duration_s: 42,
      filename: 'launch.mp4',
      alt_text: null,
      sha256: null,
      url: 'https://social.example.com/v1/assets/8/content',
      signed_url: null,
      thumbnail_url: 'https://social.example.com/v1/assets/8/thumbnail',
    },
  },
  'GET /v1/assets/{asset_id}/content': {
    error: [404, { detail: 'No asset 7 in this account.', code: 'not_found' }],
  },
  'GET /v1/assets/{asset_id}/thumbnail': {
    error: [404, { detail: 'No asset 7 in this account.', code: 'not_found' }],
  },
  'DELETE /v1/assets/{asset_id}': {
    error: [404, { detail: 'No asset 7 in this account.', code: 'not_found' }],
  },
  'POST /v1/generate': {
    request: { url: 'https://blog.example.com/how-we-bake' },
    answer: { source_id: '12', post_ids: ['41', '42', '43'], skipped_platforms: [] },
  },
  'GET /v1/brand-memory': { answer: memory },
  'POST /v1/brand-memory/genome': {
    request: { url: 'https://bakery.example.com', run: 'all' },
    answer: { job_id: '32', status: 'queued', credits: 2 },
  },
  'POST /v1/brand-memory/import': {
    request: { platforms: ['mastodon'] },
    answer: { job_id: '31', status: 'queued' },
  },
  'PATCH /v1/brand-memory': {
    request: {
      expected_version: 3,
      ops: [
        { op: 'add', path: '/vocabulary/banned/-', value: 'cheap' },
        { op: 'test', path: '/voice/persona', value: 'A butcher' },
      ],
    },
    answer: {
      ...memory,
      version: 4,
      doc: { ...memory.doc, vocabulary: { banned: ['cheap'] } },
      refused: 1,
      refusals: [{ index: 1, reason: 'the test failed: the value there differs' }],
    },
  },
};

/**
 * Answers any operation can give before its handler runs (a malformed URL or JSON body), and
 * those of any method that may carry a body: Fastify reads one on POST, PUT, PATCH and DELETE
 * whether or not the route takes it.
 */
const ANY_REQUEST: Record<string, [string, Json]> = {
  '400': [
    'Malformed request: an undecodable URL, or a body that is not the JSON it claims to be.',
    { detail: 'The body is not valid JSON.', code: 'invalid_json' },
  ],
};
const WITH_BODY: Record<string, [string, Json]> = {
  '413': [
    'The body is larger than this route accepts.',
    { detail: 'The body is larger than this route accepts.', code: 'body_too_large' },
  ],
  '415': [
    'The Content-Type is not one this route takes.',
    { detail: 'Unsupported Content-Type; send application/json.', code: 'unsupported_media_type' },
  ],
};

const errorAnswer = (description: string, example: Json): Answer => ({
  description,
  content: { 'application/json': { schema: error, example } },
});

function document(method: string, key: string, op: Operation): void {
  const bodies = BINARY_BODIES[key];
  if (bodies)
    op.requestBody = {
      required: true,
      content: Object.fromEntries(
        Object.entries(bodies).map(([type, description]) => [
          type,
          { schema: { ...binary, description } },
        ]),
      ),
    };
  const answers = BINARY_ANSWERS[key];
  if (answers)
    op.responses['200'] = {
      description: 'The bytes.',
      content: Object.fromEntries(
        Object.entries(answers).map(([type, description]) => [
          type,
          { schema: { ...binary, description } },
        ]),
      ),
    };
  const errors = { ...ANY_REQUEST, ...(method === 'get' ? {} : WITH_BODY) };
  for (const [status, [description, example]] of Object.entries(errors))
    op.responses[status] ??= errorAnswer(description, example);

  const example = EXAMPLES[key];
  if (!example) return;
  if (example.request !== undefined) {
    const json = op.requestBody?.content?.['application/json'];
    if (json) json.example = example.request;
  }
  if (example.answer !== undefined) {
    const status = Object.keys(op.responses).find((s) => s.startsWith('2'));
    const json = status && op.responses[status]?.content?.['application/json'];
    if (json) json.example = example.answer;
  }
  if (example.error) {
    const [status, body] = example.error;
    const json = op.responses[String(status)]?.content?.['application/json'];
    if (json) json.example = body;
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** @fastify/swagger's transformObject: completes every operation of the document. */
export function completeOpenapi<D extends object>({ openapiObject }: { openapiObject: D }): D {
  // The generated document, read as the little of OpenAPI this module touches.
  const { paths } = openapiObject as Document;
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(paths ?? {}))
    for (const method of METHODS) {
      const op = item[method];
      const key = `${method.toUpperCase()} ${path}`;
      if (op) document(method, key, op);
      if (op) seen.add(key);
    }
  // A renamed route must take its documentation along.
  const stale = [EXAMPLES, BINARY_BODIES, BINARY_ANSWERS]
    .flatMap((table) => Object.keys(table))
    .filter((key) => !seen.has(key));
  if (stale.length) throw new Error(`api/openapi.ts documents missing routes: ${stale.join(', ')}`);
  return openapiObject;
}
