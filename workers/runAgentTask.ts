// Runs an agent task's plan (core/agentTasks/run.ts) as an attempt of its job.
import { runAgentTask } from '../core/agentTasks/service.ts';
import type { GenerationDeps } from '../core/generation/service.ts';
import { AgentTaskPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const runAgentTaskTask = (deps: GenerationDeps) =>
  jobTask({
    pool: deps.pool,
    payload: AgentTaskPayload,
    what: 'agent task',
    lastAttemptError:
      'The task stopped; its steps so far are logged. Start it again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, report) => runAgentTask(deps, job, report),
  });
