// Reads a brand's genome from its site (core/brandMemory/genome.ts) as an attempt of its job;
// a failed job gives its credits back (core/jobs/service.ts failJob).
import { type GenomeDeps, runGenome } from '../core/brandMemory/service.ts';
import { GenomePayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const readGenomeTask = (deps: GenomeDeps) =>
  jobTask({
    pool: deps.pool,
    payload: GenomePayload,
    what: 'genome',
    lastAttemptError:
      "The brand's genome could not be read; its credits were given back. Ask again, and if it fails again, tell the operator (the worker log has the details).",
    work: (job, report, finish) => runGenome(deps, job, report, finish),
  });
