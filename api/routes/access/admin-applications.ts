import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  assertHolds,
  createApplication,
  createKey,
  DEFAULT_OVERLAP_HOURS,
  listApplications,
  ListedApplication,
  MAX_APPLICATIONS_PER_SHOP,
  MAX_LIVE_KEYS,
  MAX_OVERLAP_HOURS,
  removeApplication,
  revokeKey,
  rotateKey,
  updateApplication,
} from '../../../domain/access/index.js';
import { IdParams, Name, NoContent } from '../../../domain/kernel/index.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const IssuedKey = z.object({
  keyId: z.uuid(),
  key: z.string().describe('The plain key, shown exactly once'),
  displayPrefix: z.string(),
});

const ApplicationInput = z.strictObject({
  name: Name,
  permissions: z.array(z.string()).min(1).max(50),
  pages: z
    .union([z.literal('all'), z.array(z.uuid()).max(100)])
    .optional()
    .describe('Chat pages, for a chat permission'),
});

const tags = ['Admin: API connections'];
/** Everything here needs automation.connections.manage (the application's key grants what its creator holds). */
const readProblems = problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission');
const changeProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'conflict');

/** API connections of the admin web app: applications, their keys shown once, rotation with overlap, revocation. */
export const adminApplicationRoutes: FastifyPluginAsyncZod = async (app) => {
  const manage = (request: FastifyRequest) =>
    assertHolds(request.admin.permissions, ['automation.connections.manage'], 'managing API connections');

  app.get(
    '/applications',
    {
      schema: {
        tags,
        response: {
          200: z.object({
            data: z.array(ListedApplication),
            limits: z.object({ applications: z.number().int(), liveKeys: z.number().int(), overlapHours: z.number().int() }),
          }),
          ...readProblems,
        },
      },
    },
    async (request) => {
      manage(request);
      return {
        data: await request.inShop(listApplications),
        limits: { applications: MAX_APPLICATIONS_PER_SHOP, liveKeys: MAX_LIVE_KEYS, overlapHours: MAX_OVERLAP_HOURS },
      };
    },
  );

  app.post(
    '/applications',
    {
      schema: {
        tags,
        summary: 'Create a connection application with its first key (at most 10 applications)',
        body: ApplicationInput,
        response: { 201: IssuedKey.extend({ applicationId: z.uuid() }), ...changeProblems },
      },
    },
    async (request, reply) => {
      manage(request);
      const created = await request.inShop((tx) => createApplication(tx, request.admin.shopId, request.body, request.admin.userId));
      const { applicationId, keyId, key, displayPrefix } = created;
      return reply.status(201).send({ applicationId, keyId, key, displayPrefix });
    },
  );

  app.patch(
    '/applications/:id',
    {
      schema: {
        tags,
        summary: 'Rename an application, or change its permissions or pages, within what the editing person holds and sees',
        params: IdParams,
        body: ApplicationInput.partial(),
        response: { 200: ListedApplication, ...changeProblems },
      },
    },
    async (request) => {
      manage(request);
      return request.inShop(async (tx) => {
        await updateApplication(tx, request.params.id, request.body, request.admin.userId);
        return (await listApplications(tx)).find((application) => application.id === request.params.id)!;
      });
    },
  );

  app.delete(
    '/applications/:id',
    {
      schema: {
        tags,
        summary: 'Remove an application: its keys stop working at once; the shop log keeps naming it',
        params: IdParams,
        response: { 204: NoContent, ...changeProblems },
      },
    },
    async (request, reply) => {
      manage(request);
      await request.inShop((tx) => removeApplication(tx, request.params.id, request.admin.userId));
      return reply.status(204).send();
    },
  );

  app.post(
    '/applications/:id/keys',
    {
      schema: {
        tags,
        summary: `A further key, the live one left as it is (no expiry set); at most ${MAX_LIVE_KEYS} live keys`,
        params: IdParams,
        response: { 201: IssuedKey, ...changeProblems },
      },
    },
    async (request, reply) => {
      manage(request);
      const { keyId, key, displayPrefix } = await request.inShop((tx) => createKey(tx, request.params.id, request.admin.userId));
      return reply.status(201).send({ keyId, key, displayPrefix });
    },
  );

  app.post(
    '/applications/:id/rotate',
    {
      schema: {
        tags,
        summary: 'A new key; the live ones keep working for the overlap (0–72 h, 24 when omitted) and then expire',
        params: IdParams,
        body: z.strictObject({
          overlapHours: z
            .number()
            .int()
            .min(0)
            .max(MAX_OVERLAP_HOURS)
            .default(DEFAULT_OVERLAP_HOURS)
            .describe(`How long the live keys keep working, 0 to ${MAX_OVERLAP_HOURS} hours; ${DEFAULT_OVERLAP_HOURS} when omitted`),
        }),
        response: { 200: IssuedKey.extend({ previousKeysExpireAt: z.string() }), ...changeProblems },
      },
    },
    async (request) => {
      manage(request);
      const rotated = await request.inShop((tx) => rotateKey(tx, request.params.id, request.admin.userId, request.body.overlapHours));
      const { keyId, key, displayPrefix, previousKeysExpireAt } = rotated;
      return { keyId, key, displayPrefix, previousKeysExpireAt: previousKeysExpireAt.toISOString() };
    },
  );

  app.post(
    '/keys/:id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a key at once: its next request gets 401',
        params: IdParams,
        response: { 200: z.object({ keyId: z.uuid(), revokedAt: z.string() }), ...changeProblems },
      },
    },
    async (request) => {
      manage(request);
      const revoked = await request.inShop((tx) => revokeKey(tx, request.params.id, request.admin.userId));
      return { keyId: revoked.keyId, revokedAt: revoked.revokedAt.toISOString() };
    },
  );
};
