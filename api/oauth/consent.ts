// The consent page's two calls, on the provider's pending interaction (found by its cookie on
// the raw request): what the client asks for, and the person's answer. Allowing creates the
// provider's grant with the scopes left ticked and records it (core/oauth/service.ts, with the
// brand its tokens default to); denying answers the client `access_denied`. The rules
// (scopes, their meanings, the warning) are core/oauth/rules.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import { brandsOf, requireOwnedBrand } from '../../core/brands/service.ts';
import type { Queryable } from '../../core/db/pool.ts';
import { conflict, invalid } from '../../core/kernel/errors.ts';
import { SCOPES } from '../../core/kernel/plans.ts';
import {
  type ConsentDecision,
  type ConsentView,
  clientWarning,
  recordGrant,
  resourceOf,
  SCOPE_MEANINGS,
  scopesIn,
} from '../../core/oauth/service.ts';

type Http = { req: IncomingMessage; res: ServerResponse };
type Person = { accountId: string; selectedBrandId: string | null };

const expired = () =>
  conflict(
    'interaction_expired',
    'This sign-in request has expired or was already answered: start again from the app.',
  );

/** The pending request and its client; an expired or answered one is a 409. */
async function pendingRequest(provider: Provider, http: Http) {
  let details: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    details = await provider.interactionDetails(http.req, http.res);
  } catch (err) {
    if (err instanceof errors.SessionNotFound) throw expired();
    throw err;
  }
  if (details.result) throw expired();
  const clientId = String(details.params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client) throw conflict('unknown_client', 'The app asking is no longer registered.');
  const asked = scopesIn(details.params.scope);
  return {
    params: details.params,
    client,
    clientId,
    // A request naming none of our scopes asks for all of them.
    asked: asked.length ? asked : [...SCOPES],
  };
}

export async function consentView(
  provider: Provider,
  db: Queryable,
  http: Http,
  person: Person,
): Promise<ConsentView> {
  const { params, client, clientId, asked } = await pendingRequest(provider, http);
  const redirectUri = String(params.redirect_uri);
  const issuedAt = client.metadata().client_id_issued_at as number | undefined;
  const brands = await brandsOf(db, person.accountId);
  return {
    client_id: clientId,
    client_name: client.clientName ?? null,
    redirect_host: new URL(redirectUri).host,
    registered_at: issuedAt === undefined ? null : new Date(issuedAt * 1000).toISOString(),
    warning: clientWarning({ clientId, issuedAt, redirectUri }),
    scopes: asked.map((name) => ({ name, meaning: SCOPE_MEANINGS[name] })),
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
  const { params, client, clientId, asked } = await pendingRequest(provider, http);
  const answer = (result: Parameters<Provider['interactionResult']>[2]) =>
    provider.interactionResult(http.req, http.res, result, { mergeWithLastSubmission: false });
  if (!decision.allow)
    return answer({
      error: 'access_denied',
      error_description: 'The user did not allow access.',
    });
  const scopes = decision.scopes.filter((s) => asked.includes(s));
  if (!scopes.length) throw invalid(['scopes'], 'tick at least one scope, or deny');
  const brandId = decision.brand_id ?? person.selectedBrandId;
  if (!brandId) throw invalid(['brand_id'], 'choose a brand');
  await requireOwnedBrand(db, person.accountId, brandId);

  const resource = resourceOf(publicBaseUrl);
  const grant = new provider.Grant({ accountId: person.accountId, clientId });
  grant.addResourceScope(resource, scopes.join(' '));
  // Unticked scopes are refused, not left to ask again: the client gets a narrower token.
  const unticked = asked.filter((s) => !scopes.includes(s));
  if (unticked.length) grant.rejectResourceScope(resource, unticked.join(' '));
  // The request's scopes as the provider's own are answered too (it asks consent for those);
  // they carry nothing: a token holds the resource's scopes, the ones left ticked.
  const requested = String(params.scope ?? '').trim();
  if (requested) grant.addOIDCScope(requested);
  const grantId = await grant.save();
  try {
    await recordGrant(db, {
      grantId,
      accountId: person.accountId,
      clientId,
      clientName: client.clientName ?? null,
      brandId,
      scopes,
    });
  } catch (err) {
    // No grant the Apps page cannot show: the provider's goes too.
    await grant.destroy();
    throw err;
  }
  return answer({ login: { accountId: person.accountId }, consent: { grantId } });
}
