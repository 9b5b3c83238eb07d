// The breadth limits of the GraphQL beta (SPEC.md "Limits"), as validation rules: a query
// failing one is refused before execution, like any invalid query (HTTP 400).
import {
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';

export const GRAPHQL_LIMITS = {
  /** Characters of the query string, checked before parsing. */
  queryLength: 2_000,
  rootFieldsPerQuery: 8,
  rootFieldsPerMutation: 1,
  /** Field selections in one operation, fragments expanded, `__typename` included. */
  selectedFields: 60,
} as const;

type Fragments = (name: string) => FragmentDefinitionNode | undefined | null;

/**
 * Counts the fields of a selection set with fragments expanded where they are used: only
 * the set's own level, or every level below it too. A fragment cycle counts once (the
 * standard NoFragmentCycles rule reports it).
 */
function countFields(
  set: SelectionSetNode,
  fragments: Fragments,
  deep: boolean,
  expanding: ReadonlySet<string> = new Set(),
): number {
  let n = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      n += 1;
      if (deep && sel.selectionSet) n += countFields(sel.selectionSet, fragments, deep, expanding);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      n += countFields(sel.selectionSet, fragments, deep, expanding);
    } else {
      const name = sel.name.value;
      const fragment = fragments(name);
      if (!fragment || expanding.has(name)) continue;
      n += countFields(fragment.selectionSet, fragments, deep, new Set([...expanding, name]));
    }
  }
  return n;
}

const breadthLimits: ValidationRule = (context) => ({
  OperationDefinition(node) {
    const fragments: Fragments = (name) => context.getFragment(name);
    const max =
      node.operation === 'mutation'
        ? GRAPHQL_LIMITS.rootFieldsPerMutation
        : GRAPHQL_LIMITS.rootFieldsPerQuery;
    const roots = countFields(node.selectionSet, fragments, false);
    if (roots > max)
      context.reportError(
        new GraphQLError(
          `A ${node.operation} may select at most ${max} root field(s); this one selects ${roots}.`,
          { nodes: node, extensions: { code: 'too_many_root_fields' } },
        ),
      );
    const total = countFields(node.selectionSet, fragments, true);
    if (total > GRAPHQL_LIMITS.selectedFields)
      context.reportError(
        new GraphQLError(
          `An operation may select at most ${GRAPHQL_LIMITS.selectedFields} fields; this one selects ${total}.`,
          { nodes: node, extensions: { code: 'too_many_fields' } },
        ),
      );
  },
});

/** Rules added to graphql's standard validation: the limits, and no introspection. */
export const LIMIT_RULES: ValidationRule[] = [breadthLimits, NoSchemaIntrospectionCustomRule];
