// The engagement inbox's rules, kept in the brand memory's `engagement` section (their
// schema is the memory's): which actions to propose on which inbound posts. A rule only
// proposes: an action runs when a person or a key with `engage` approves it, whatever the
// post says.
import {
  ENGAGEMENT_ACTIONS,
  type EngagementAction,
  EngagementRules,
  INBOUND_KINDS,
} from '../brandMemory/schema.ts';
import { bannedMatcher as anyOf } from '../generation/service.ts';

export { ENGAGEMENT_ACTIONS, type EngagementAction, EngagementRules, INBOUND_KINDS };

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
