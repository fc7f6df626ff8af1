import { describe, expect, it } from 'vitest';
import { startTestApi } from '../support/api.js';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { expectProblem } from '../support/problems.js';
import { loadSettings } from '../../config/settings.js';
import { addMember, updateMember } from '../../domain/access/users.js';

const { db, api, shop } = useSuite({ api: true, shop: true });

const PASSWORD = 'correct horse battery staple';

async function newMember(name: string): Promise<{ id: string; email: string }> {
  return addMember(db.app, shop.shopId, { email: `${name}@revocation.test`, name, password: PASSWORD });
}

async function logIn(
  email: string,
  password = PASSWORD,
  baseUrl = api.baseUrl,
  shopSlug = shop.slug,
): Promise<{ cookie: string; setCookie: string }> {
  const response = await fetch(`${baseUrl}/api/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ shop: shopSlug, email, password }),
  });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, setCookie };
}

const whoAmI = (cookie: string) => fetch(`${api.baseUrl}/api/admin/session`, { headers: { cookie } });

async function expectEnded(cookie: string): Promise<void> {
  await expectProblem(await whoAmI(cookie), 401, 'not-logged-in');
}

describe('ending admin sessions', () => {
  it('a new password ends the sessions made with the old one', async () => {
    const member = await newMember('pat');
    const { cookie } = await logIn(member.email);
    expect((await whoAmI(cookie)).status).toBe(200);
    await updateMember(db.app, shop.shopId, member.id, { password: 'a brand new password' });
    await expectEnded(cookie);
    expect((await whoAmI((await logIn(member.email, 'a brand new password')).cookie)).status).toBe(200);
  });

  it('a lock ends the sessions for good: unlocking does not bring them back', async () => {
    const member = await newMember('lou');
    const { cookie } = await logIn(member.email);
    await updateMember(db.app, shop.shopId, member.id, { locked: true });
    await expectEnded(cookie);
    await updateMember(db.app, shop.shopId, member.id, { locked: false });
    await expectEnded(cookie);
    expect((await whoAmI((await logIn(member.email)).cookie)).status).toBe(200);
  });

  it("a lock set from one shop ends the person's sessions in their other shops too, for good", async () => {
    const member = await newMember('ari');
    const otherShop = await createShopFixture(db.app);
    await addMember(db.app, otherShop.shopId, { email: member.email, name: 'ari' });
    const elsewhere = await logIn(member.email, PASSWORD, api.baseUrl, otherShop.slug);
    expect((await whoAmI(elsewhere.cookie)).status).toBe(200);
    await updateMember(db.app, shop.shopId, member.id, { locked: true });
    await updateMember(db.app, shop.shopId, member.id, { locked: false });
    await expectEnded(elsewhere.cookie);
    expect((await whoAmI((await logIn(member.email, PASSWORD, api.baseUrl, otherShop.slug)).cookie)).status).toBe(200);
  });

  it('leaving the shop or being disabled ends the sessions; working again does not bring them back', async () => {
    const member = await newMember('kim');
    const disabled = await logIn(member.email);
    await updateMember(db.app, shop.shopId, member.id, { status: 'disabled' });
    await updateMember(db.app, shop.shopId, member.id, { status: 'working' });
    await expectEnded(disabled.cookie);
    const left = await logIn(member.email);
    await updateMember(db.app, shop.shopId, member.id, { status: 'left' });
    await updateMember(db.app, shop.shopId, member.id, { status: 'working' });
    await expectEnded(left.cookie);
  });

  it('refuses a session made before the password changed, even when its row is still there', async () => {
    const member = await newMember('sam');
    const before = await logIn(member.email);
    // As another shop's change of this account would: the row stays, only the timestamp moves.
    await db.admin`update users set password_changed_at = now() where id = ${member.id}`;
    await expectEnded(before.cookie);
    const [row] = await db.admin<{ sessions: number }[]>`select count(*)::int as sessions from admin_sessions where user_id = ${member.id}`;
    expect(row!.sessions).toBe(1);
    expect((await whoAmI((await logIn(member.email)).cookie)).status).toBe(200);
  });

  it('keeps the sessions when nothing ending them changed', async () => {
    const member = await newMember('ash');
    const { cookie } = await logIn(member.email);
    await updateMember(db.app, shop.shopId, member.id, { status: 'working', locked: false });
    expect((await whoAmI(cookie)).status).toBe(200);
  });
});

describe('the session cookie', () => {
  it('is Secure when secure cookies are on, and not when off', async () => {
    const member = await newMember('rio');
    expect((await logIn(member.email)).setCookie).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
    const plain = await startTestApi(db.app, undefined, { secureCookies: false });
    try {
      const { setCookie } = await logIn(member.email, PASSWORD, plain.baseUrl);
      expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict$/);
      expect(setCookie).not.toMatch(/Secure/);
    } finally {
      await plain.close();
    }
  });

  it('is Secure everywhere but development and tests, whatever the public URL', () => {
    const settings = (env: NodeJS.ProcessEnv) =>
      loadSettings({
        CURSOR_SECRET: 'a-cursor-secret-of-the-test',
        WORKFLOW_SEAL_KEY: 'a-workflow-seal-key-of-the-test-0123456789',
        SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'),
        PAYLOAD_CODEC_KEYS: `k:${Buffer.alloc(32, 4).toString('base64')}`,
        ...env,
      });
    expect(settings({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://shop.internal' }).secureCookies).toBe(true);
    expect(settings({ PUBLIC_BASE_URL: 'http://shop.internal' }).secureCookies).toBe(true);
    expect(settings({ NODE_ENV: 'development', PUBLIC_BASE_URL: 'https://shop.example' }).secureCookies).toBe(false);
    expect(settings({ NODE_ENV: 'test' }).secureCookies).toBe(false);
  });
});
