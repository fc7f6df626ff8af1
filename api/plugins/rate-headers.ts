import type { FastifyReply } from 'fastify';
import { rateState } from '../../domain/access/index.js';

/** `X-RateLimit-Limit`, `-Remaining` and `-Reset` of a counted request (spec, Rate limits); returns the state to judge it by. */
export function setRateHeaders(reply: FastifyReply, limit: number, hits: number, windowStart: Date): ReturnType<typeof rateState> {
  const state = rateState(limit, hits, windowStart);
  reply.header('x-ratelimit-limit', state.limit);
  reply.header('x-ratelimit-remaining', state.remaining);
  reply.header('x-ratelimit-reset', state.resetSeconds);
  return state;
}
