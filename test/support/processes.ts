// Runs the project's own entry points (bin/*.ts) as child processes, as an operator would.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type CliResult = { code: number; stdout: string; stderr: string; json: any };

/**
 * Runs `node bin/admin.ts ...args` against a database and returns its output; `stdin` is
 * written to its standard input, which is then closed (empty when not given).
 */
export function admin(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
  stdin = '',
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'bin/admin.ts'), ...args],
      { env: { ...process.env, DATABASE_URL: databaseUrl, ...env }, cwd: ROOT },
      (err, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {}
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr, json });
      },
    );
    // A command that reads no input may have exited already.
    child.stdin?.on('error', () => {});
    child.stdin?.end(stdin);
  });
}

/** The arguments of `admin connect`: `platform`, with `config`, for the account's brand. */
export const connectArgs = (
  acct: { email: string; brandId: string },
  platform: string,
  config: unknown,
) => [
  'connect',
  '--email',
  acct.email,
  '--brand-id',
  acct.brandId,
  '--platform',
  platform,
  '--config',
  JSON.stringify(config),
];

/** Spawns `node bin/start.ts <role> ...args`, collecting its standard output and error. */
export function spawnStart(
  role: string,
  env: Record<string, string>,
  args: string[] = [],
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/start.ts'), role, ...args], {
    env: { ...process.env, PORT: '0', ...env },
    cwd: ROOT,
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  return { child, output: () => out };
}

/** Starts `node bin/start.ts <role>` and resolves once it listens (api roles) or started. */
export function startProcess(
  role: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output: () => string; baseUrl: string }> {
  const { child, output } = spawnStart(role, env);
  return new Promise((resolve, reject) => {
    // Only bounds a hang: a start with its own embedded Postgres is slow on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`no listen line:\n${output()}`)), 60_000);
    const check = () => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (m) {
        clearTimeout(timer);
        resolve({ child, output, baseUrl: m[1]! });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output()}`)));
  });
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
