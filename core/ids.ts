// Ids are Postgres bigint identities serialized as strings (CONTRACT.md). Anything else can
// never name a row, so it is answered like an unknown id rather than reaching SQL.
import { z } from 'zod';

const ID_PATTERN = /^[1-9][0-9]{0,17}$/;

export const isId = (value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERN.test(value);

/**
 * An id in JSON input: a string of digits (numbers are accepted and turned into strings).
 * A codec, not a transform: schemas holding it (a layout's asset_id) also describe
 * responses, and a response is encoded, which a one-way transform cannot be.
 */
export const IdInput = z
  .codec(
    z.union([z.string(), z.number().int().positive()]),
    z.string().regex(ID_PATTERN, 'must be an id: a string of digits'),
    { decode: (v) => String(v), encode: (id) => id },
  )
  .describe('Identifier (a string of digits).');
