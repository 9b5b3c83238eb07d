// compose.yaml is copied as is by operators: it must carry no secret of its own, and the API
// and the workers must share the keys and the media volume they all need.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../core/config.ts';
import { TASK_POOL } from '../core/jobs/tasks.ts';

type Service = { environment?: Record<string, string>; volumes?: string[]; command?: string[] };
const compose = parse(readFileSync('compose.yaml', 'utf8')) as {
  services: Record<string, Service>;
};
const { postgres, api } = compose.services as Record<string, Service>;
const workers = Object.entries(compose.services).filter(([name]) => name.startsWith('worker'));

/** Compose's interpolation of `${VAR:?message}` and `${VAR:-default}`. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_all, name, op, arg) => {
    if (env[name]) return env[name];
    if (op === '?') throw new Error(`compose refuses to start: ${arg}`);
    return op === '-' ? arg : '';
  });
}

const SECRETS = ['SESSION_SECRET', 'MEDIA_URL_SECRET', 'CREDENTIALS_KEY'];

describe('compose.yaml', () => {
  it('sets no secret itself: each is required from the environment', () => {
    expect(postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(api!.environment!.DATABASE_URL).toContain('${POSTGRES_PASSWORD:?');
    for (const name of SECRETS)
      expect(api!.environment![name]).toMatch(new RegExp(`^\\$\\{${name}:\\?.+\\}$`));
    expect(() => interpolate(api!.environment!.SESSION_SECRET!, {})).toThrow(/SESSION_SECRET/);
  });

  it('the API and the workers share the keys and the data volume', () => {
    expect(api!.volumes).toContain('data:/data');
    for (const [, worker] of workers) {
      for (const name of [...SECRETS, 'DATABASE_URL'])
        expect(worker.environment![name]).toBe(api!.environment![name]);
      expect(worker.volumes).toContain('data:/data');
    }
  });

  it('runs a worker service per pool that has tasks, together every such pool', () => {
    const pools = workers.map(([, w]) => {
      const command = w.command!;
      expect(command.slice(0, 2)).toEqual(['worker', '--pool']);
      return command[2]!.split(',');
    });
    expect(pools.flat().sort()).toEqual([...new Set(Object.values(TASK_POOL))].sort());
  });

  it('with generated values in the environment, the service starts with them', () => {
    const env = {
      POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
      SESSION_SECRET: randomBytes(32).toString('base64'),
      MEDIA_URL_SECRET: randomBytes(32).toString('base64'),
      CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    };
    const apiEnv = Object.fromEntries(
      Object.entries(api!.environment!).map(([k, v]) => [k, interpolate(String(v), env)]),
    );
    const config = loadConfig({ ...apiEnv, DATA_DIR: '/data' });
    expect(config).toMatchObject({
      sessionSecret: env.SESSION_SECRET,
      mediaUrlSecret: env.MEDIA_URL_SECRET,
      credentialsKey: env.CREDENTIALS_KEY,
    });
    expect(config.databaseUrl).toContain(env.POSTGRES_PASSWORD);
  });
});
