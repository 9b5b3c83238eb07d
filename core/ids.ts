// Ids are Postgres bigint identities serialized as strings (CONTRACT.md). Anything else can
// never name a row, so it is answered like an unknown id rather than reaching SQL.
import { z } from 'zod';

const ID_PATTERN = /^[1-9][0-9]{0,17}$/;

export const isId = (value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERN.test(value);

/** An id in JSON input: a string of digits (numbers are accepted and turned into strings). */
export const IdInput = z
  .union([z.string(), z.number().int().positive()])
  .transform((v) => String(v))
  .refine(isId, 'must be an id: a string of digits')
  .describe('Identifier (a string of digits).');
