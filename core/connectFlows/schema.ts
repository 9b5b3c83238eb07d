// The dashboard's OAuth connect flow as the API and the Accounts page see it: what starting one
// takes and answers, and the reasons a callback sends the browser back without a connection.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';

export const StartConnectInput = z
  .object({ brand_id: IdInput.optional().describe('Brand to connect. Omitted: the selected one.') })
  .strict();
export type StartConnectInput = z.infer<typeof StartConnectInput>;

export const StartedConnect = z.object({
  authorize_url: z.string().describe("The platform's authorize page: send the browser there."),
});
export type StartedConnect = z.infer<typeof StartedConnect>;

/**
 * Why a callback did not connect: the `connect_error` the Accounts page is sent back with. A
 * code of ours, never the platform's words (a link anyone can craft carries those), and never
 * a token.
 */
export const CONNECT_ERRORS = [
  /** The person declined on the platform's page. */
  'access_denied',
  /** The platform answered with another error. */
  'platform_error',
  /** No session in this browser: sign in, then connect again. */
  'session_required',
  /** The state is unknown, used already, or another session's. */
  'invalid_state',
  /** The flow is older than 10 minutes. */
  'expired',
  /** The operator's app credentials are missing (or the platform cannot be connected yet). */
  'not_configured',
  /** The platform refused to trade the code for tokens. */
  'token_exchange_failed',
  /** The tokens came, but the platform would not say whose account they are. */
  'identity_failed',
  /** Something of ours failed (logged); try again. */
  'failed',
] as const;
export type ConnectErrorCode = (typeof CONNECT_ERRORS)[number];

/** What a callback may carry (OAuth 2: `code` and `state`, or `error`). */
export const ConnectCallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(200).optional(),
});
export type ConnectCallbackQuery = z.infer<typeof ConnectCallbackQuery>;
