import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Sql } from '../../../db/client.js';
import {
  ADMIN_LANGUAGES,
  chooseAdminLanguage,
  ConcurrencyLimit,
  failedChecksPerShop,
  logIn,
  logOut,
  PASSWORD_CHECKS_AT_ONCE,
  PASSWORD_CHECKS_KNOWN_DEVICES,
  SESSION_HOURS,
  type AdminSession,
  type LoginDevices,
  type SessionMisses,
  type ShopFailedChecks,
} from '../../../domain/access/index.js';
import { SESSION_COOKIE } from '../../plugins/admin-session.js';
import { clientAddressBucket } from '../../plugins/client-address.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';
import { NoContent } from '../../../domain/kernel/index.js';

const SessionAnswer = z.object({
  csrfToken: z.string().describe('Send it back in X-CSRF-Token on every change'),
  user: z.object({
    id: z.uuid(),
    name: z.string(),
    email: z.string(),
    language: z.enum(ADMIN_LANGUAGES).nullable().describe("The person's language for the app, on their account; null until they choose"),
  }),
  shop: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
  permissions: z.array(z.string()),
});

const tags = ['Admin: session'];
/**
 * The login needs no session, and is throttled per address and per account and address
 * (docs/decisions/0048-admin-logins-are-throttled-where-the-guesser.md).
 */
const loginProblems = problemResponses(
  'validation-failed',
  'invalid-api-key',
  'invalid-credentials',
  'rate-limited',
  'payload-too-large',
  'unsupported-media-type',
  'internal-error',
);

interface AdminSessionOptions {
  sql: Sql;
  secureCookie: boolean;
  /** Password checks running at once; `PASSWORD_CHECKS_AT_ONCE` slots by default, one per client address. */
  passwordChecks?: ConcurrencyLimit;
  /** Each shop's failed checks for logins from browsers the account does not know; SHOP_FAILED_CHECKS by default. */
  shopFailedChecks?: ShopFailedChecks;
  /** The marks of browsers members logged in from, whose logins check passwords apart (login-devices.ts). */
  devices: LoginDevices;
  /** The door's memory of unknown sessions: a session issued here passes it at once. */
  sessionMisses: SessionMisses;
}

/** The cookie that marks a browser a member logged in from (login-devices.ts), sent back only to the login. */
const DEVICE_COOKIE = 'shopflow_device';
const DEVICE_COOKIE_DAYS = 365;

/** Log in (e-mail and password of a shop member), who am I, log out. */
export const adminSessionRoutes: FastifyPluginAsyncZod<AdminSessionOptions> = async (
  app,
  {
    sql,
    secureCookie,
    passwordChecks = new ConcurrencyLimit(PASSWORD_CHECKS_AT_ONCE),
    shopFailedChecks = failedChecksPerShop(),
    devices,
    sessionMisses,
  },
) => {
  const knownDeviceChecks = new ConcurrencyLimit(PASSWORD_CHECKS_KNOWN_DEVICES);
  const answer = (session: AdminSession) => ({
    csrfToken: session.csrfToken,
    user: { id: session.userId, name: session.userName, email: session.email, language: session.language },
    shop: { id: session.shopId, slug: session.shopSlug, name: session.shopName },
    permissions: session.permissions,
  });

  app.post(
    '/session',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Log in to the admin web app',
        body: z.strictObject({
          shop: z.string().min(1).max(100),
          email: z.string().min(3).max(255),
          password: z.string().min(1).max(1000),
        }),
        response: { 200: SessionAnswer, ...loginProblems },
      },
    },
    async (request, reply) => {
      const { token, session } = await logIn(sql, request.body, {
        clientAddress: clientAddressBucket(request.ip),
        passwordChecks,
        knownDeviceChecks,
        shopFailedChecks,
        devices,
        deviceMark: request.cookies[DEVICE_COOKIE],
      });
      sessionMisses.valid(token);
      const cookie = { httpOnly: true, sameSite: 'strict', secure: secureCookie } as const;
      void reply.setCookie(SESSION_COOKIE, token, { ...cookie, path: '/api/admin', maxAge: SESSION_HOURS * 3600 });
      void reply.setCookie(DEVICE_COOKIE, devices.markFor(session.shopId, session.email), {
        ...cookie,
        path: '/api/admin/session',
        maxAge: DEVICE_COOKIE_DAYS * 86_400,
      });
      return answer(session);
    },
  );

  app.get(
    '/session',
    { schema: { tags, summary: 'The logged-in member', response: { 200: SessionAnswer, ...problemResponses(ADMIN_READ_PROBLEMS) } } },
    async (request) => answer(request.admin),
  );

  app.patch(
    '/session',
    {
      schema: {
        tags,
        summary: "The logged-in person's language, kept on their account (it follows them to any browser)",
        body: z.strictObject({ language: z.enum(ADMIN_LANGUAGES) }),
        response: { 200: SessionAnswer, ...problemResponses(ADMIN_WRITE_PROBLEMS) },
      },
    },
    async (request) => answer(await chooseAdminLanguage(sql, request.admin, request.body.language)),
  );

  app.post(
    '/session/logout',
    {
      schema: { tags, summary: 'Log out', response: { 204: NoContent, ...problemResponses(ADMIN_WRITE_PROBLEMS, 'api-key-not-accepted') } },
    },
    async (request, reply) => {
      await logOut(sql, request.admin, request.cookies[SESSION_COOKIE]!);
      void reply.clearCookie(SESSION_COOKIE, { path: '/api/admin' });
      return reply.status(204).send();
    },
  );
};
