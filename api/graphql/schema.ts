// The GraphQL beta schema of SPEC.md (`me`, `posts`, `createPost`) and its resolvers: each
// maps its arguments onto the REST input schema, checks its scope, and calls the domain.
import { createSchema } from 'graphql-yoga';
import type { z } from 'zod';
import { describeMe } from '../../core/accounts/service.ts';
import { assertRequirement } from '../../core/auth/service.ts';
import type { Pool } from '../../core/db/pool.ts';
import type { Scope } from '../../core/kernel/plans.ts';
import type { Principal } from '../../core/kernel/principal.ts';
import { CreatePostInput, ListPostsQuery, type Post } from '../../core/posts/schema.ts';
import { createPost, listPosts } from '../../core/posts/service.ts';
import { parseInput } from '../../core/validation.ts';

export type GraphQLContext = { principal: Principal; pool: Pool };

const typeDefs = /* GraphQL */ `
  type Query {
    me: Me!
    posts(status: String, limit: Int, brandId: ID): [Post!]!
  }
  type Mutation {
    createPost(input: CreatePostInput!): CreatePostResult!
  }
  type Me {
    email: String!
    plan: String!
    scopes: [String!]!
  }
  type Post {
    id: ID!
    uuid: String!
    platform: String!
    kind: String!
    status: String!
    body: String!
    hashtags: String
    headline: String
    scheduledFor: String
    mediaCount: Int!
  }
  type CreatePostResult {
    id: ID!
    platform: String!
    kind: String!
    status: String!
    scheduledAt: String
  }
  input CreatePostInput {
    platform: String!
    body: String!
    hashtags: String
    scheduleAt: String
    kind: String
    assetIds: [ID!]
    brandId: ID
  }
`;

/** Drops nulls: GraphQL passes an omitted variable as null, the REST schemas expect absence. */
const present = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** Parses with the REST schema; issues keep REST's field names, mapped in ./errors.ts. */
const parse = <S extends z.ZodType>(schema: S, value: unknown, at: string): z.output<S> =>
  parseInput(schema, value, [at]);

const needs = (ctx: GraphQLContext, scope: Scope) => assertRequirement(ctx.principal, { scope });

type PostsArgs = { status?: string | null; limit?: number | null; brandId?: string | null };
type CreateArgs = {
  input: {
    platform: string;
    body: string;
    hashtags?: string | null;
    scheduleAt?: string | null;
    kind?: string | null;
    assetIds?: string[] | null;
    brandId?: string | null;
  };
};

export const schema = createSchema<GraphQLContext>({
  typeDefs,
  resolvers: {
    Query: {
      me: (_root: unknown, _args: unknown, ctx: GraphQLContext) => describeMe(ctx.principal),
      posts: (_root: unknown, args: PostsArgs, ctx: GraphQLContext) => {
        needs(ctx, 'read');
        const query = parse(
          ListPostsQuery,
          present({ status_filter: args.status, limit: args.limit, brand_id: args.brandId }),
          'query',
        );
        return listPosts(ctx.pool, ctx.principal, query);
      },
    },
    Mutation: {
      createPost: (_root: unknown, { input }: CreateArgs, ctx: GraphQLContext) => {
        needs(ctx, 'publish');
        const body = parse(
          CreatePostInput,
          present({
            platform: input.platform,
            body: input.body,
            hashtags: input.hashtags,
            schedule_at: input.scheduleAt,
            kind: input.kind,
            asset_ids: input.assetIds,
            brand_id: input.brandId,
          }),
          'body',
        );
        return createPost(ctx.pool, ctx.principal, body);
      },
    },
    Post: {
      scheduledFor: (p: Post) => p.scheduled_for,
      mediaCount: (p: Post) => p.asset_ids.length,
    },
    CreatePostResult: {
      scheduledAt: (p: Post) => p.scheduled_for,
    },
  },
});
