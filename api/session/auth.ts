// /auth: dashboard login, logout, the session view and the selected brand.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EmailInput, MIN_PASSWORD_LENGTH, NewPassword } from '../../core/accounts/schema.ts';
import { SessionView, selectBrand, sessionView, signUp } from '../../core/accounts/service.ts';
import { Brand } from '../../core/brands/service.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import {
  admitAttempt,
  createSession,
  deleteSession,
  principalForSession,
  SESSION_TTL_SECONDS,
  signIn,
} from '../../core/sessions/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody, NoContent } from '../rest/schemas.ts';
import { requireSession, SESSION_COOKIE, type SessionDeps, sessionToken } from './sessionCookie.ts';

const LoginInput = z
  .object({
    email: EmailInput.describe('Account e-mail.'),
    password: z.string().min(1).max(1024).describe('Account password.'),
  })
  .strict();

const SignupInput = z
  .object({
    email: EmailInput.describe('Account e-mail.'),
    password: NewPassword.describe(`At least ${MIN_PASSWORD_LENGTH} characters.`),
  })
  .strict();

const sessionSecurity = [{ session: [] }];

export const authRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool, config }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const secure = config.publicBaseUrl.startsWith('https:');
  const setSessionCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(SESSION_COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      signed: true,
      maxAge: SESSION_TTL_SECONDS,
    });

  app.post(
    '/auth/login',
    {
      schema: {
        summary: 'Sign in to the dashboard; sets the HttpOnly session cookie',
        tags: ['session'],
        body: LoginInput,
        response: { 200: SessionView, 401: ErrorBody, 422: ErrorBody, 429: ErrorBody },
      },
    },
    async (req, reply) => {
      // req.ip is the forwarded client address only when TRUST_PROXY says a proxy sets it.
      // A browser still holding a valid session signs in again apart from its address.
      const token = sessionToken(req);
      const current = token ? await principalForSession(pool, token) : undefined;
      const account = await signIn(pool, {
        ...req.body,
        ip: req.ip,
        session: current && { accountId: current.accountId, id: current.credential.id },
      });
      setSessionCookie(reply, await createSession(pool, account.id));
      return sessionView(pool, account.id);
    },
  );

  app.post(
    '/auth/signup',
    {
      schema: {
        summary: 'Create an account as SIGNUP allows (first, open); signs it in',
        tags: ['session'],
        body: SignupInput,
        response: {
          201: SessionView,
          403: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      // Under the sign-in throttle: a burst of sign-ups, or of e-mails probed for 409, from
      // one address waits like a burst of sign-ins.
      await admitAttempt(pool, req.body.email, req.ip);
      const made = await signUp(pool, config.signup, req.body);
      setSessionCookie(reply, await createSession(pool, made.accountId));
      return reply.code(201).send(await sessionView(pool, made.accountId));
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        summary: 'Sign out (ends the session)',
        tags: ['session'],
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      const token = sessionToken(req);
      if (token) await deleteSession(pool, token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/auth/session',
    {
      preHandler: requireSession(pool),
      schema: {
        summary: 'The signed-in account, its plan, brands and selected brand',
        tags: ['session'],
        security: sessionSecurity,
        response: { 200: SessionView, 401: ErrorBody },
      },
    },
    async (req) => sessionView(pool, principalOf(req).accountId),
  );

  app.put(
    '/auth/session/brand',
    {
      preHandler: requireSession(pool),
      schema: {
        summary: 'Select the brand used wherever brand_id is omitted',
        tags: ['session'],
        security: sessionSecurity,
        body: z.object({ brand_id: IdInput }).strict(),
        response: {
          200: z.object({ selected_brand_id: z.string(), brand: Brand }),
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const brand = await selectBrand(pool, principalOf(req).accountId, req.body.brand_id);
      return { selected_brand_id: brand.id, brand };
    },
  );
};
