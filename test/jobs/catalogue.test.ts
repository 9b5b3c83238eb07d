// The task catalogue (core/jobs/tasks.ts) is the one place a task is named, and jobs go
// through Graphile Worker's public API only: the code is read for task names spelled
// elsewhere and for any use of the worker's private tables, and the worker registers exactly
// the catalogue's tasks, the periodic ones with their schedule.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Pool } from '../../core/db/pool.ts';
import type { PageImageCache } from '../../core/designs/service.ts';
import { crontabFor, TASK } from '../../core/jobs/tasks.ts';
import { fsStorage } from '../../core/storage/fs.ts';
import type { RenderPool } from '../../render/renderPool.ts';
import { taskList } from '../../workers/index.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CATALOGUE = 'core/jobs/tasks.ts';
/** Where production code lives (tests may import the catalogue's constants). */
const CODE_DIRS = ['core', 'api', 'workers', 'bin', 'bench'];

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory())
      return name === 'node_modules' ? [] : filesUnder(rel);
    return /\.(ts|sql)$/.test(name) ? [rel] : [];
  });
}

const code = CODE_DIRS.flatMap(filesUnder).map((file) => ({
  file,
  text: readFileSync(path.join(ROOT, file), 'utf8'),
}));

describe('the task catalogue', () => {
  it('is the only code that spells a task name, once each', () => {
    for (const name of Object.values(TASK)) {
      const literal = new RegExp(`['"\`]${name}['"\`:]`, 'g');
      const spelled = code.flatMap(({ file, text }) => (text.match(literal) ?? []).map(() => file));
      expect({ name, spelled }).toEqual({ name, spelled: [CATALOGUE] });
    }
  });

  it('leaves migrations after 003 free of task names (013 dropped its fan-out function)', () => {
    const sql = filesUnder('sql').filter((f) => Number(path.basename(f).slice(0, 3)) > 3);
    for (const file of sql) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const name of Object.values(TASK))
        expect({ file, has: text.includes(name) }).toEqual({ file, has: false });
    }
  });

  it("is used through Graphile Worker's public API: no code touches its private tables", () => {
    const touching = code.filter(({ text }) => /graphile_worker\s*\.\s*_private/.test(text));
    expect(touching.map((c) => c.file)).toEqual([]);
  });

  it('names exactly the tasks a worker with storage registers, and schedules the periodic ones', () => {
    const deps = {
      pool: {} as Pool,
      connectors: {},
      outbound: { allowlist: [], allowHttp: false },
    };
    // A worker with storage also has a render pool (its threads start on the first render).
    const full = Object.keys(
      taskList({
        ...deps,
        storage: fsStorage(ROOT),
        renderer: {} as RenderPool,
        images: {} as PageImageCache,
      }),
    );
    expect(full.sort()).toEqual(Object.values(TASK).sort());
    expect(crontabFor(full).split('\n').sort()).toEqual(
      [
        `0 * * * * ${TASK.cleanupSessions}`,
        `30 * * * * ${TASK.cleanupUploads}`,
        `* * * * * ${TASK.reconcile}`,
        `*/15 * * * * ${TASK.collectMetrics}`,
        `45 * * * * ${TASK.collectTrends}`,
        `*/5 * * * * ${TASK.collectInbound}`,
        `15 3 * * * ${TASK.pruneEngagement}`,
        `30 * * * * ${TASK.watchCompetitors}`,
        `20 */6 * * * ${TASK.renewConnections}`,
      ].sort(),
    );
    // Without storage a worker renders nothing and cleans no uploads: no schedule for them.
    const bare = Object.keys(taskList(deps));
    expect(crontabFor(bare)).toBe(
      `0 * * * * ${TASK.cleanupSessions}\n* * * * * ${TASK.reconcile}\n*/15 * * * * ${TASK.collectMetrics}\n45 * * * * ${TASK.collectTrends}\n30 * * * * ${TASK.watchCompetitors}\n*/5 * * * * ${TASK.collectInbound}\n15 3 * * * ${TASK.pruneEngagement}\n20 */6 * * * ${TASK.renewConnections}`,
    );
  });
});
