// The brand as the API answers it.
import { z } from 'zod';

export const Brand = z.object({
  id: z.string().describe('Numeric brand id, as a string.'),
  uuid: z.string().describe('Brand UUID (used by create_design).'),
  name: z.string(),
  timezone: z.string().describe('IANA time zone of the posting slots.'),
});
export type Brand = z.infer<typeof Brand>;
