// The breadth limits of the GraphQL beta (SPEC.md "Limits"), as validation rules: a query
// failing one is refused before execution, like any invalid query (HTTP 400).
import {
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { ErrorCode } from '../../core/kernel/errors.ts';

export const GRAPHQL_LIMITS = {
  /** Characters of the query string, checked before parsing. */
  queryLength: 2_000,
  rootFieldsPerQuery: 8,
  rootFieldsPerMutation: 1,
  /** Field selections in one operation, fragments expanded, `__typename` included. */
  selectedFields: 60,
} as const;

/**
 * Counts the fields of a selection set with fragments expanded where they are used: only
 * the set's own level, or every level below it too. Each fragment is counted once and
 * remembered, so a fragment spread many times over (each spreading the next twice, say)
 * costs linear time instead of doubling per level. A spread back into a fragment being
 * expanded counts 0: the cycle makes the query invalid anyway (NoFragmentCycles reports it).
 */
function fieldCounter(context: ValidationContext, deep: boolean) {
  const known = new Map<string, number>();
  const expanding = new Set<string>();

  const fragmentFields = (name: string): number => {
    const seen = known.get(name);
    if (seen !== undefined) return seen;
    const fragment = context.getFragment(name);
    if (!fragment || expanding.has(name)) return 0;
    expanding.add(name);
    const n = count(fragment.selectionSet);
    expanding.delete(name);
    known.set(name, n);
    return n;
  };

  const count = (set: SelectionSetNode): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD)
        n += 1 + (deep && sel.selectionSet ? count(sel.selectionSet) : 0);
      else if (sel.kind === Kind.INLINE_FRAGMENT) n += count(sel.selectionSet);
      else n += fragmentFields(sel.name.value);
    }
    return n;
  };
  return count;
}

const breadthLimits: ValidationRule = (context) => {
  const rootFields = fieldCounter(context, false);
  const allFields = fieldCounter(context, true);
  return {
    OperationDefinition(node) {
      const max =
        node.operation === 'mutation'
          ? GRAPHQL_LIMITS.rootFieldsPerMutation
          : GRAPHQL_LIMITS.rootFieldsPerQuery;
      const roots = rootFields(node.selectionSet);
      if (roots > max)
        context.reportError(
          new GraphQLError(
            `A ${node.operation} may select at most ${max} root field(s); this one selects ${roots}.`,
            { nodes: node, extensions: { code: 'too_many_root_fields' satisfies ErrorCode } },
          ),
        );
      const total = allFields(node.selectionSet);
      if (total > GRAPHQL_LIMITS.selectedFields)
        context.reportError(
          new GraphQLError(
            `An operation may select at most ${GRAPHQL_LIMITS.selectedFields} fields; this one selects ${total}.`,
            { nodes: node, extensions: { code: 'too_many_fields' satisfies ErrorCode } },
          ),
        );
    },
  };
};

/** Rules added to graphql's standard validation: the limits, and no introspection. */
export const LIMIT_RULES: ValidationRule[] = [breadthLimits, NoSchemaIntrospectionCustomRule];
