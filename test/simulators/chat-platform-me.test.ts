import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatPlatform, type RunningChatPlatform } from '../../simulators/chat/index.js';
import { chatClient, expectGraphError, type GraphErrorBody } from './chat-platform-client.js';

/** `GET /me`: whose token it is, the call linking a page makes (issue 26), with Graph's answers and refusals. */
const HOUR_MS = 3_600_000;
let simulator: RunningChatPlatform;
let client: ReturnType<typeof chatClient>;

beforeAll(async () => {
  simulator = await startChatPlatform();
  client = chatClient(simulator);
});
afterAll(async () => {
  await simulator?.close();
});

async function newPage(name = 'Shop page') {
  const page = (await client.control<{ id: string; accessTokens: string[] }>('POST', '/pages', { name })).body;
  return { pageId: page.id, token: page.accessTokens[0]! };
}

describe('GET /me', () => {
  it("names the token's page, and refuses other tokens as Graph does (2500, 190, 190/458, 190/463)", async () => {
    const { pageId, token } = await newPage();
    const other = await newPage();
    expect(await client.graph('GET', '/me?fields=id,name', { token })).toEqual({ status: 200, body: { id: pageId, name: 'Shop page' } });
    expect((await client.graph('GET', `/me?access_token=${other.token}`)).body).toEqual({ id: other.pageId, name: 'Shop page' });

    const [app] = (await client.control<{ apps: { id: string; secret: string }[] }>('GET', '/')).body.apps;
    for (const noPage of [undefined, `${app!.id}|${app!.secret}`]) {
      const answer = await client.graph<GraphErrorBody>('GET', '/me', { token: noPage });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        type: 'OAuthException',
        code: 2500,
        message: 'An active access token must be used to query information about the current user.',
      });
    }
    const unknown = await client.graph<GraphErrorBody>('GET', '/me', { token: 'EAAmade-up-token' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'OAuthException', code: 190 });
    expect(unknown.body.error.error_subcode).toBeUndefined();

    const expiresAt = new Date(Date.now() + HOUR_MS);
    const shortLived = (
      await client.control<{ accessToken: string }>('POST', `/pages/${pageId}/tokens`, { expiresAt: expiresAt.toISOString() })
    ).body.accessToken;
    expect((await client.graph('GET', '/me', { token: shortLived })).body).toMatchObject({ id: pageId });
    await client.control('POST', '/clock', { advanceMs: 2 * HOUR_MS });
    const expired = await client.graph<GraphErrorBody>('GET', '/me', { token: shortLived });
    expectGraphError(expired, 190, 463);
    expect(expired.body.error.message).toMatch(/^Error validating access token: Session has expired on \w+day, \d\d-\w{3}-\d\d /);
    expect((await client.graph('GET', '/me', { token })).status).toBe(200);

    await client.control('POST', `/pages/${pageId}/disconnect`);
    expectGraphError(await client.graph('GET', '/me', { token }), 190, 458);
    await client.control('POST', '/faults', { kind: 'read', effect: 'unavailable' });
    const down = await client.graph<GraphErrorBody>('GET', '/me', { token: other.token });
    expect(down.status).toBe(503);
    expectGraphError(down, 2);
  });
});
