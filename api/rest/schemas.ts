// Response schemas shared by REST routes (OpenAPI documents them; serialization uses them).
import { z } from 'zod';

export const ErrorBody = z
  .object({
    detail: z.union([
      z.string(),
      z.array(
        z.object({
          loc: z.array(z.union([z.string(), z.number()])),
          msg: z.string(),
          type: z.string(),
        }),
      ),
    ]),
    code: z.string().optional(),
  })
  .loose()
  .describe('Error: `detail` is a sentence, or the list of validation issues on 422.');

export const NoContent = z.null().describe('No content.');

/** The error statuses every bearer route can answer with. */
export const bearerErrors = {
  401: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
} as const;

export const bearerSecurity = [{ bearer: [] }];
