// Ids are Postgres bigint identities serialized as strings (CONTRACT.md). Anything else can
// never name a row, so it is answered like an unknown id rather than reaching SQL.
import { randomBytes } from 'node:crypto';
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

/**
 * A new stable id for a part of a document (a layer's cid, a clip's id, a stroke's sid):
 * `prefix` and 8 random letters or digits, never a database id.
 */
export const newPartId = (prefix: string) =>
  `${prefix}${randomBytes(6)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
