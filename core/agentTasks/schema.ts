// Agent tasks (SPEC.md MCP "AI team tasks"; issue 21, item 4; preview feature agent_tasks):
// what create_agent_task, list_agent_tasks and get_agent_task take and answer.
import { z } from 'zod';
import { Job } from '../jobs/schema.ts';
import { IdInput } from '../kernel/ids.ts';

export const AGENT_TASK_KINDS = ['draft_week', 'reply_sweep', 'trend_brief'] as const;
export type AgentTaskKind = (typeof AGENT_TASK_KINDS)[number];

export const CreateAgentTaskInput = z
  .object({
    brand_id: IdInput.optional().describe('Omitted: the selected brand.'),
    kind: z
      .enum(AGENT_TASK_KINDS)
      .describe(
        "draft_week: a week of drafts from the goal and the memory's pillars; reply_sweep: drafted replies for open suggestions; trend_brief: a brief of trends and the last 30 days.",
      ),
    goal: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .describe('What the task is for: a theme for the week, how to answer, what to look at.'),
  })
  .strict();
export type CreateAgentTaskInput = z.infer<typeof CreateAgentTaskInput>;

export const AgentTaskStep = z.object({
  name: z.string(),
  status: z.enum(['done', 'skipped']),
  detail: z.string(),
  at: z.string(),
});
export type AgentTaskStep = z.infer<typeof AgentTaskStep>;

export const AgentTask = z.object({
  id: z.string(),
  brand_id: z.string(),
  kind: z.enum(AGENT_TASK_KINDS),
  goal: z.string(),
  status: Job.shape.status,
  steps: z.array(AgentTaskStep).describe('The plan as run so far, each step with what it did.'),
  outputs: z
    .record(z.string(), z.unknown())
    .describe(
      "What it made: post_ids (drafts), drafted (suggestion ids), brief; third parties' words only under untrusted.",
    ),
  job: Job.nullable(),
  created_at: z.string(),
});
export type AgentTask = z.infer<typeof AgentTask>;

export const ListAgentTasksInput = z
  .object({
    brand_id: IdInput.optional().describe('Only this brand; omitted: every brand.'),
    limit: z.number().int().min(1).max(50).default(20),
    cursor: IdInput.optional().describe('next_cursor of the previous page.'),
  })
  .strict();
export type ListAgentTasksInput = z.infer<typeof ListAgentTasksInput>;

export const GetAgentTaskInput = z.object({ task_id: IdInput }).strict();
export type GetAgentTaskInput = z.infer<typeof GetAgentTaskInput>;
