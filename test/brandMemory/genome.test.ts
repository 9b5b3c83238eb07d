// The brand genome (POST /v1/brand-memory/genome) against a small site served on loopback and
// a real worker: credits are taken when the job is queued (402 and nothing queued without
// them) and given back when it fails; the job reads the page, its stylesheet and its logo,
// and writes the colours with their roles, the fonts and the voice's tone into the memory,
// keeping a section a person stated.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits, creditsOf } from '../../core/accounts/db.ts';
import { findJob } from '../../core/jobs/db.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useService } from '../support/service.ts';
import { followJob } from '../support/wait.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Crumb bakery</title>
<link rel="stylesheet" href="/style.css">
<link rel="preload" href="https://fonts.googleapis.com/css2?family=Lora:wght@400&amp;display=swap"><style>:root { --brand: #e4572e; }</style>
<meta property="og:image" content="/logo.png"></head>
<body><header><img class="logo" src="/logo.png" alt="Crumb"></header><article><h1>Our bakery</h1>
${'<p>We bake our bread for you every morning, and we love it when you come early! Our ovens start at four, and your loaf is still warm when you arrive.</p>'.repeat(8)}
</article></body></html>`;
const CSS = `body { background: #ffffff; color: #222222; font-family: "Playfair Display", serif; }
a { color: #e4572e; } .button { background-color: #e4572e; border-color: #e4572e; }
.badge { background: #2e86ab; } h1 { font-family: Inter, sans-serif; color: #222222; }`;

let site: http.Server;
let siteUrl: string;
let logo: Buffer;
beforeAll(async () => {
  logo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2e86ab' } })
    .png()
    .toBuffer();
  site = http.createServer((req, res) => {
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (req.url === '/style.css')
      return res.writeHead(200, { 'content-type': 'text/css' }).end(CSS);
    if (req.url === '/logo.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => site.close(resolve)));

const svc = useService({ env: LOOPBACK_OUTBOUND, worker: {} });

async function accountWithCredits(credits: number) {
  const acct = await makeAccount(svc.server.pool, 'business');
  if (credits) await addCredits(svc.server.pool, acct.accountId, credits);
  const key = await makeKey(svc.server.pool, acct.accountId, ['read', 'generate']);
  return { acct, key };
}

const jobDone = (accountId: string, jobId: string) =>
  followJob(
    async () => {
      const job = await findJob(svc.server.pool, accountId, jobId);
      if (!job) throw new Error(`no job ${jobId}`);
      return job;
    },
    { timeoutMs: 60_000, what: 'the genome job' },
  );

describe('the brand genome', () => {
  it('charges its credits and writes the colours, fonts and tone it read', async () => {
    const { acct, key } = await accountWithCredits(3);
    const res = await call(svc.server, 'POST', '/v1/brand-memory/genome', {
      key,
      body: { url: `${siteUrl}/` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ job_id: expect.any(String), status: 'queued', credits: 2 });
    expect(await creditsOf(svc.server.pool, acct.accountId)).toBe(1);
    const job = await jobDone(acct.accountId, res.body.job_id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(job.result).toMatchObject({ read: { stylesheets: 1, images: 1 }, kept_as_stated: [] });
    expect(job.result!.colors).toEqual(
      expect.arrayContaining([{ hex: '#e4572e', role: 'primary' }]),
    );

    const memory = (await call(svc.server, 'GET', '/v1/brand-memory', { key })).body;
    expect(memory.doc.visual.colors).toEqual(
      expect.arrayContaining([
        { hex: '#e4572e', role: 'primary' },
        { hex: '#2e86ab', role: 'secondary' },
        { hex: '#ffffff', role: 'background' },
        { hex: '#222222', role: 'text' },
      ]),
    );
    expect(memory.doc.visual.fonts).toEqual(['Playfair Display', 'Inter', 'Lora']);
    expect(memory.doc.voice.tone).toEqual(expect.arrayContaining(['warm', 'direct', 'energetic']));
    expect(memory.confidence.sections).toMatchObject({ visual: 0.6, voice: 0.6 });
    // The run succeeded: its credits stay used.
    expect(await creditsOf(svc.server.pool, acct.accountId)).toBe(1);
  }, 90_000);

  it('refuses with 402 and queues nothing without the credits', async () => {
    const { acct, key } = await accountWithCredits(1);
    const res = await call(svc.server, 'POST', '/v1/brand-memory/genome', {
      key,
      body: { url: `${siteUrl}/`, run: 'all' },
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'insufficient_credits', credits: 2 });
    expect(await creditsOf(svc.server.pool, acct.accountId)).toBe(1);
    const { rows } = await svc.server.pool.query(
      'select count(*)::int as n from jobs where account_id = $1',
      [acct.accountId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('gives the credits back when the job fails', async () => {
    const { acct, key } = await accountWithCredits(1);
    const res = await call(svc.server, 'POST', '/v1/brand-memory/genome', {
      key,
      body: { url: `${siteUrl}/missing`, run: 'visual' },
    });
    expect(res.body.credits).toBe(1);
    // Taken when queued (the job row keeps what it took); the balance may already be back.
    const taken = await svc.server.pool.query('select credits from jobs where id = $1', [
      res.body.job_id,
    ]);
    expect(taken.rows[0].credits).toBe(1);
    const job = await jobDone(acct.accountId, res.body.job_id);
    expect(job).toMatchObject({ status: 'failed' });
    expect(job.error).toMatch(/answered HTTP 404/);
    expect(await creditsOf(svc.server.pool, acct.accountId)).toBe(1);
  }, 60_000);

  it("keeps a section a person stated, and needs a url or the memory's site", async () => {
    const { acct, key } = await accountWithCredits(5);
    const none = await call(svc.server, 'POST', '/v1/brand-memory/genome', { key, body: {} });
    expect(none.status).toBe(422);
    expect(none.body.detail[0].msg).toMatch(/set the brand memory's site/);
    const stated = await call(svc.server, 'PATCH', '/v1/brand-memory', {
      key,
      body: {
        expected_version: 1,
        ops: [
          { op: 'add', path: '/voice', value: { tone: ['calm'] } },
          { op: 'add', path: '/links', value: { site: `${siteUrl}/` } },
        ],
      },
    });
    expect(stated.status).toBe(200);
    // Only the stated voice asked for: nothing would change, so nothing is charged.
    const voiceOnly = await call(svc.server, 'POST', '/v1/brand-memory/genome', {
      key,
      body: { run: 'voice' },
    });
    expect(voiceOnly.status).toBe(422);
    expect(voiceOnly.body.detail[0].msg).toMatch(/voice was stated by a person/);
    expect(await creditsOf(svc.server.pool, acct.accountId)).toBe(5);
    const res = await call(svc.server, 'POST', '/v1/brand-memory/genome', { key, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const job = await jobDone(acct.accountId, res.body.job_id);
    expect(job.result).toMatchObject({ kept_as_stated: ['voice'] });
    const memory = (await call(svc.server, 'GET', '/v1/brand-memory', { key })).body;
    expect(memory.doc.voice.tone).toEqual(['calm']);
    expect(memory.doc.visual.colors.length).toBeGreaterThan(0);
  }, 60_000);
});
