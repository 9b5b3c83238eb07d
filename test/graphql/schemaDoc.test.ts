// Introspection is off, so the README publishes the GraphQL schema; this keeps that copy true.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../api/graphql/schema.ts';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');

describe("the README's GraphQL schema", () => {
  it('is printSchema of the served schema (paste the expected text there when this fails)', () => {
    const readme = readFileSync(README, 'utf8');
    const block =
      /<!-- graphql-schema -->\n```graphql\n([\s\S]*?)\n```\n<!-- \/graphql-schema -->/.exec(
        readme,
      );
    expect(block, 'README.md has no <!-- graphql-schema --> block').not.toBeNull();
    expect(block![1]).toBe(printSchema(schema));
  });
});
