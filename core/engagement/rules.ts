// The engagement inbox's rules, kept in the brand memory's `engagement`
// section: which actions to propose on which inbound posts. A rule only proposes: an action
// runs when a person or a key with `engage` approves it, whatever the post says.
import { z } from 'zod';
import { bannedMatcher as anyOf } from '../generation/offline.ts';

export const ENGAGEMENT_ACTIONS = ['like', 'repost', 'reply', 'follow'] as const;
export type EngagementAction = (typeof ENGAGEMENT_ACTIONS)[number];
export const INBOUND_KINDS = ['mention', 'reply', 'keyword'] as const;

const Term = z.string().trim().min(1).max(60);

const Rule = z
  .object({
    on: z
      .enum(INBOUND_KINDS)
      .describe('Which posts: mentions, replies to the brand, keyword matches.'),
    propose: z.array(z.enum(ENGAGEMENT_ACTIONS)).min(1).max(4),
    contains: z
      .array(Term)
      .max(20)
      .optional()
      .describe('Only posts holding one of these terms (as words, ignoring case).'),
  })
  .strict();

export const EngagementRules = z
  .object({
    keywords: z
      .array(Term)
      .max(10)
      .describe('Terms watched on the platforms: a post holding one is a keyword match.'),
    rules: z.array(Rule).max(20),
  })
  .partial()
  .strict()
  .describe('The engagement inbox: keywords watched and the actions rules propose.');
export type EngagementRules = z.infer<typeof EngagementRules>;

/** The actions the rules propose for one post, each once, in rule order. */
export function proposedActions(
  post: { kind: (typeof INBOUND_KINDS)[number]; text: string },
  rules: EngagementRules,
): EngagementAction[] {
  const actions = new Set<EngagementAction>();
  for (const rule of rules.rules ?? []) {
    if (rule.on !== post.kind) continue;
    if (rule.contains?.length && !anyOf(rule.contains)(post.text)) continue;
    for (const a of rule.propose) actions.add(a);
  }
  return [...actions];
}

/** The keywords each mentions reading searches the platform for, each once. */
export const watchedKeywords = (rules: EngagementRules) => [...new Set(rules.keywords ?? [])];
