// The consent page's operations (behind the dashboard session): what a client asks for, and
// the person's answer. Allowing creates the provider's grant with the scopes left ticked and
// records the brand its tokens default to; denying answers the client `access_denied`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { SCOPES, type Scope } from '../accounts/plans.ts';
import { brandsOf, requireOwnedBrand } from '../brands/service.ts';
import type { Queryable } from '../db/pool.ts';
import { conflict, invalid } from '../errors.ts';
import { IdInput } from '../ids.ts';
import { insertGrant } from './db.ts';
import { resourceOf } from './provider.ts';

/** What each scope lets a client do, as the consent page and the README say it. */
export const SCOPE_MEANINGS: Record<Scope, string> = {
  read: 'See your posts, media, designs, analytics and usage.',
  publish: 'Create, edit, approve, schedule and publish posts and designs.',
  media: 'Upload and delete media in your library.',
  generate: 'Generate drafts and update brand memory (uses credits).',
  engage: 'Reply to mentions and act on the engagement inbox.',
};

/** A client registered this recently, sending you to a host that is not this machine, is flagged. */
export const FRESH_CLIENT_S = 3600;

export const ConsentView = z.object({
  client_id: z.string(),
  client_name: z.string().nullable(),
  redirect_host: z.string(),
  registered_at: z.string().nullable(),
  warning: z.string().nullable(),
  scopes: z.array(z.object({ name: z.enum(SCOPES), meaning: z.string() })),
  brands: z.array(z.object({ id: z.string(), name: z.string() })),
  brand_id: z.string().nullable().describe('The brand preselected: the dashboard’s selected one.'),
});
export type ConsentView = z.infer<typeof ConsentView>;

export const ConsentDecision = z
  .object({
    allow: z.boolean(),
    scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).default([]),
    brand_id: IdInput.optional(),
  })
  .strict();
export type ConsentDecision = z.infer<typeof ConsentDecision>;

type Http = { req: IncomingMessage; res: ServerResponse };
type Person = { accountId: string; selectedBrandId: string | null };

const isLoopback = (host: string) =>
  host === 'localhost' || host.startsWith('127.') || host === '[::1]';

/** The scopes a request asks for; a request naming none of ours asks for all of them. */
function requestedScopes(scope: unknown): Scope[] {
  const asked = String(scope ?? '')
    .split(/\s+/)
    .filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  return asked.length ? [...new Set(asked)] : [...SCOPES];
}

async function interactionOf(provider: Provider, http: Http) {
  try {
    return await provider.interactionDetails(http.req, http.res);
  } catch {
    throw conflict(
      'interaction_expired',
      'This sign-in request has expired or was already answered: start again from the app.',
    );
  }
}

export async function consentView(
  provider: Provider,
  db: Queryable,
  http: Http,
  person: Person,
  now = Date.now(),
): Promise<ConsentView> {
  const { params } = await interactionOf(provider, http);
  const clientId = String(params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client) throw conflict('unknown_client', 'The app asking is no longer registered.');
  const redirectHost = new URL(String(params.redirect_uri)).host;
  const issuedAt = client.metadata().client_id_issued_at as number | undefined;
  const fresh = issuedAt !== undefined && now / 1000 - issuedAt < FRESH_CLIENT_S;
  const warning =
    fresh && !isLoopback(new URL(String(params.redirect_uri)).hostname)
      ? `This app registered itself ${Math.max(1, Math.round((now / 1000 - issuedAt) / 60))} minute(s) ago and will send you on to ${redirectHost}. Allow it only if you started this sign-in yourself.`
      : null;
  const brands = await brandsOf(db, person.accountId);
  return {
    client_id: clientId,
    client_name: client.clientName ?? null,
    redirect_host: redirectHost,
    registered_at: issuedAt === undefined ? null : new Date(issuedAt * 1000).toISOString(),
    warning,
    scopes: requestedScopes(params.scope).map((name) => ({ name, meaning: SCOPE_MEANINGS[name] })),
    brands: brands.map((b) => ({ id: b.id, name: b.name })),
    brand_id: person.selectedBrandId ?? brands[0]?.id ?? null,
  };
}

/**
 * The person's answer: the address the browser goes to next (back through the provider to
 * the client, with a code or with access_denied).
 */
export async function decideConsent(
  provider: Provider,
  db: Queryable,
  http: Http,
  person: Person,
  publicBaseUrl: string,
  decision: ConsentDecision,
): Promise<string> {
  const { params } = await interactionOf(provider, http);
  if (!decision.allow)
    return provider.interactionResult(
      http.req,
      http.res,
      { error: 'access_denied', error_description: 'The user did not allow access.' },
      { mergeWithLastSubmission: false },
    );
  const asked = requestedScopes(params.scope);
  const scopes = decision.scopes.filter((s) => asked.includes(s));
  if (!scopes.length) throw invalid(['scopes'], 'tick at least one scope, or deny');
  const brandId = decision.brand_id ?? person.selectedBrandId;
  if (!brandId) throw invalid(['brand_id'], 'choose a brand');
  await requireOwnedBrand(db, person.accountId, brandId);
  const clientId = String(params.client_id);
  const client = await provider.Client.find(clientId);
  const grant = new provider.Grant({ accountId: person.accountId, clientId });
  grant.addResourceScope(resourceOf(publicBaseUrl), scopes.join(' '));
  // Unticked scopes are refused, not left to ask again: the client gets a narrower token.
  const unticked = asked.filter((s) => !scopes.includes(s));
  if (unticked.length) grant.rejectResourceScope(resourceOf(publicBaseUrl), unticked.join(' '));
  // The request's scopes as the provider's own are answered too (it asks consent for those);
  // they carry nothing: a token holds the resource's scopes, the ones left ticked.
  const requested = String(params.scope ?? '').trim();
  if (requested) grant.addOIDCScope(requested);
  const grantId = await grant.save();
  await insertGrant(db, {
    grantId,
    accountId: person.accountId,
    clientId,
    clientName: client?.clientName ?? null,
    brandId,
    scopes,
  });
  return provider.interactionResult(
    http.req,
    http.res,
    { login: { accountId: person.accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}
