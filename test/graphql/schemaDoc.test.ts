// Introspection is off, so docs/api.md publishes the GraphQL schema; this keeps that copy true.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../api/graphql/schema.ts';

const API_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/api.md');

describe('the GraphQL schema in docs/api.md', () => {
  it('is printSchema of the served schema (paste the expected text there when this fails)', () => {
    const doc = readFileSync(API_DOC, 'utf8');
    const block =
      /<!-- graphql-schema -->\n```graphql\n([\s\S]*?)\n```\n<!-- \/graphql-schema -->/.exec(doc);
    expect(block, 'docs/api.md has no <!-- graphql-schema --> block').not.toBeNull();
    expect(block![1]).toBe(printSchema(schema));
  });
});
