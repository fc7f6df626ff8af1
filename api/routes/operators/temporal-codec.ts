import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Sql } from '../../../db/client.js';
import { AesGcmPayloadCodec, jsonOfPayload, payloadOfJson, type CodecKey } from '../../../config/payload-codec.js';
import {
  isOperatorSession,
  isOperatorToken,
  OPERATOR_SESSION_HOURS,
  operatorSession,
  throttleOperatorLogin,
} from '../../../domain/access/index.js';
import { NoContent, Problem } from '../../../domain/kernel/index.js';
import { clientAddressBucket } from '../../plugins/client-address.js';
import { problemResponses } from '../../schemas/problem.js';
import { CODEC_LOGIN_CSP, CODEC_LOGIN_PAGE } from './codec-login-page.js';

/** Where the Temporal Web UI and CLI are pointed for decoding (`--codec-endpoint`, the UI's Codec Server setting). */
export const CODEC_PREFIX = '/temporal-codec';
export const OPERATOR_COOKIE = 'shopflow_operator';

export interface TemporalCodecOptions {
  sql: Sql;
  codecKeys: readonly [CodecKey, ...CodecKey[]];
  /** Settings `CODEC_OPERATOR_TOKEN`: without it nothing is served here. */
  operatorToken: string | undefined;
  /** The Web UI's origins: the only ones whose browser requests get CORS answers (with credentials). */
  uiOrigins: readonly string[];
}

/** The Web UI's origin, and its twin on the other loopback name (a browser may open either). */
export function webUiOrigins(temporalUiUrl: string): string[] {
  const url = new URL(temporalUiUrl);
  const twin = { localhost: '127.0.0.1', '127.0.0.1': 'localhost' }[url.hostname];
  return [url.origin, ...(twin ? [`${url.protocol}//${twin}${url.port ? `:${url.port}` : ''}`] : [])];
}

const base64 = z
  .string()
  .max(4 * 1024 * 1024)
  .regex(/^[A-Za-z0-9+/=_-]*$/, 'base64');
const PayloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() })).max(1_000),
});

/**
 * The codec endpoint (docs/security.md, Workflow histories): `POST /decode` and `POST /encode` of the
 * Temporal codec server protocol, for an authenticated operator only: `Authorization: Bearer <token>`
 * (the CLI's `--codec-auth`) or the session cookie `/temporal-codec/login` sets (the Web UI with
 * "Include cross-origin credentials"). An anonymous caller gets 401 and nothing decoded.
 */
export const temporalCodecRoutes: FastifyPluginAsyncZod<TemporalCodecOptions> = async (app, options) => {
  const { operatorToken } = options;
  if (!operatorToken) return;
  const codec = new AesGcmPayloadCodec(options.codecKeys);

  const allowOrigin = (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (!origin || !options.uiOrigins.includes(origin)) return;
    void reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true').header('vary', 'Origin');
  };
  const assertOperator = (request: FastifyRequest) => {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const session = request.cookies[OPERATOR_COOKIE];
    if (bearer ? isOperatorToken(operatorToken, bearer) : session !== undefined && isOperatorSession(operatorToken, session)) return;
    throw new Problem(
      'not-logged-in',
      `decoding is for operators: log in at ${CODEC_PREFIX}/login, or send the operator token as a Bearer`,
    );
  };

  for (const operation of ['decode', 'encode'] as const) {
    const path = `${CODEC_PREFIX}/${operation}`;
    app.options(path, { schema: { hide: true } }, (request, reply) => {
      allowOrigin(request, reply);
      return reply
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'content-type, x-namespace, authorization')
        .header('access-control-max-age', '600')
        .status(204)
        .send();
    });
    app.post(
      path,
      {
        config: { public: true },
        schema: {
          hide: true,
          body: PayloadsBody,
          response: { 200: PayloadsBody, ...problemResponses('not-logged-in', 'validation-failed') },
        },
        onRequest: async (request, reply) => allowOrigin(request, reply),
      },
      async (request) => {
        assertOperator(request);
        const payloads = request.body.payloads.map(payloadOfJson);
        const coded = operation === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
        return { payloads: coded.map(jsonOfPayload) };
      },
    );
  }

  app.get(`${CODEC_PREFIX}/login`, { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CODEC_LOGIN_CSP).send(CODEC_LOGIN_PAGE),
  );
  app.post(
    `${CODEC_PREFIX}/login`,
    {
      config: { public: true },
      schema: {
        hide: true,
        body: z.strictObject({ token: z.string().min(1).max(500) }),
        response: { 204: NoContent, ...problemResponses('invalid-credentials', 'rate-limited', 'validation-failed') },
      },
    },
    async (request, reply) => {
      await throttleOperatorLogin(options.sql, clientAddressBucket(request.ip));
      if (!isOperatorToken(operatorToken, request.body.token)) throw new Problem('invalid-credentials', 'not the operator token');
      void reply.setCookie(OPERATOR_COOKIE, operatorSession(operatorToken), {
        path: CODEC_PREFIX,
        httpOnly: true,
        // The Web UI is another site (another port or host name): its requests carry the cookie only with
        // SameSite=None, which needs Secure (browsers take it from http://localhost and 127.0.0.1 too).
        sameSite: 'none',
        secure: true,
        maxAge: OPERATOR_SESSION_HOURS * 3600,
      });
      return reply.status(204).send();
    },
  );
};
