import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { cookieIsSecure } from '../../src/modules/dashboard/dashboard-http.ts';
import { issueLink } from '../../src/modules/dashboard/sign-in-links.ts';
import { totpAt } from '../../src/modules/dashboard/totp.ts';
import { runUsersCommand } from '../../src/modules/dashboard/users.cli.ts';
import { findUserByEmail } from '../../src/modules/dashboard/users.repo.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { addUser, as, PASSWORD, sessionCookie, signIn } from './support.ts';

const URL_BASE = '/api/v1/dashboard';

for (const engine of engines()) {
  describe(`dashboard sign-in and sessions on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;

    test('setup', async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
    });

    test('sign-in sets an HTTP-only, SameSite=Lax session cookie (Secure off localhost) and the session names the role', async () => {
      await addUser(database, shop, 'finance', 'ana@example.com');
      const res = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: 'ANA@example.com', password: PASSWORD },
      });
      assert.equal(res.statusCode, 200, res.body);
      const cookie = [res.headers['set-cookie']].flat().join('\n');
      assert.match(cookie, /checkout_dashboard=[A-Za-z0-9_-]{43};/);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.match(cookie, /Secure/);
      const me = await app.inject({
        method: 'GET',
        url: `${URL_BASE}/session`,
        headers: { cookie: sessionCookie(res.headers['set-cookie']) },
      });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().user.role, 'finance');
      assert.equal(me.json().account.slug, shop.slug);
      assert.ok(me.json().permissions.includes('refunds.create'));
      assert.equal(cookieIsSecure('http://127.0.0.1:3000'), false);
      assert.equal(cookieIsSecure('http://localhost:3000'), false);
      assert.equal(cookieIsSecure('https://pay.example.com'), true);
    });

    test('a wrong password and an unknown address get the same 401; no session without a cookie', async () => {
      const wrong = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: 'ana@example.com', password: 'not the password' },
        remoteAddress: '10.9.0.1',
      });
      const unknown = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: 'nobody@example.com', password: 'not the password' },
        remoteAddress: '10.9.0.1',
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      assert.equal(wrong.json().message, unknown.json().message);
      assert.equal(wrong.json().code, 'invalid_credentials');
      const anonymous = await app.inject({ method: 'GET', url: `${URL_BASE}/orders` });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().code, 'authentication_required');
    });

    test('sign-in is throttled per account after 5 failures, even with the right password', async () => {
      const user = await addUser(database, shop, 'support', 'bia@example.com');
      for (let i = 0; i < 5; i++) {
        const res = await app.inject({
          method: 'POST',
          url: `${URL_BASE}/session`,
          payload: { email: user.email, password: `wrong ${i}` },
          remoteAddress: `10.1.0.${i + 1}`,
        });
        assert.equal(res.statusCode, 401);
      }
      const blocked = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: user.email, password: PASSWORD },
        remoteAddress: '10.1.0.99',
      });
      assert.equal(blocked.statusCode, 429);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
    });

    test('sign-in is throttled per IP after 30 failures across addresses', async () => {
      const user = await addUser(database, shop, 'support', 'caio@example.com');
      for (let i = 0; i < 30; i++) {
        await app.inject({
          method: 'POST',
          url: `${URL_BASE}/session`,
          payload: { email: `guess${i}@example.com`, password: 'wrong password' },
          remoteAddress: '10.2.0.1',
        });
      }
      const blocked = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: user.email, password: PASSWORD },
        remoteAddress: '10.2.0.1',
      });
      assert.equal(blocked.statusCode, 429);
      const elsewhere = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: user.email, password: PASSWORD },
        remoteAddress: '10.2.0.2',
      });
      assert.equal(elsewhere.statusCode, 200);
    });

    test('a state-changing request without the CSRF token is refused, with a wrong one too', async () => {
      const user = await signIn(app, (await addUser(database, shop, 'owner', 'dora@example.com')).email);
      const missing = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/sessions/end_all`,
        headers: { cookie: user.cookie },
      });
      assert.equal(missing.statusCode, 403);
      const wrong = await app.inject({
        method: 'DELETE',
        url: `${URL_BASE}/session`,
        headers: { cookie: user.cookie, 'x-csrf-token': 'x'.repeat(43) },
      });
      assert.equal(wrong.statusCode, 403);
      const invite = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/users`,
        headers: { cookie: user.cookie },
        payload: { email: 'x@example.com', role: 'support' },
      });
      assert.equal(invite.statusCode, 403);
      assert.equal(
        (await app.inject({ method: 'GET', url: `${URL_BASE}/session`, headers: { cookie: user.cookie } })).statusCode,
        200,
      );
    });

    test('sign-out ends the session at once; sign out everywhere ends every session of the user', async () => {
      const email = (await addUser(database, shop, 'admin', 'edu@example.com')).email;
      const first = await signIn(app, email);
      const out = await app.inject({ method: 'DELETE', url: `${URL_BASE}/session`, headers: as(first) });
      assert.equal(out.statusCode, 204);
      assert.match([out.headers['set-cookie']].flat().join(), /checkout_dashboard=;/);
      assert.equal(
        (await app.inject({ method: 'GET', url: `${URL_BASE}/session`, headers: { cookie: first.cookie } })).statusCode,
        401,
      );
      const laptop = await signIn(app, email);
      const phone = await signIn(app, email);
      assert.equal(
        (await app.inject({ method: 'POST', url: `${URL_BASE}/sessions/end_all`, headers: as(phone) })).statusCode,
        204,
      );
      for (const session of [laptop, phone])
        assert.equal(
          (await app.inject({ method: 'GET', url: `${URL_BASE}/orders`, headers: { cookie: session.cookie } }))
            .statusCode,
          401,
        );
    });

    test('users add prints a one-time invite link: the password is checked, the link works once', async () => {
      const added = await runUsersCommand(
        ['add', '--account', shop.slug, '--email', 'Fabi@Example.com', '--role', 'owner'],
        { db: database.db, publicUrl: 'http://pay.test', now: new Date() },
      );
      assert.equal(added.email, 'fabi@example.com');
      const token = /\/dashboard\/link#([A-Za-z0-9_-]{43})$/.exec(added.sign_in_url)?.[1];
      assert.ok(token, added.sign_in_url);
      const inspected = await app.inject({ method: 'POST', url: `${URL_BASE}/links/inspect`, payload: { token } });
      assert.deepEqual(inspected.json(), { email: 'fabi@example.com', purpose: 'invite', needs_password: true });
      const redeem = (password?: string) =>
        app.inject({
          method: 'POST',
          url: `${URL_BASE}/links/redeem`,
          payload: { token, ...(password ? { password } : {}) },
        });
      assert.equal((await redeem()).statusCode, 422);
      const common = await redeem('password123');
      assert.equal(common.statusCode, 422);
      assert.match(common.json().details[0].message, /common/);
      // From the package's breach-corpus list, and from our Portuguese additions.
      for (const listed of ['Revolution', 'q123456789', 'jesuscristo'])
        assert.match((await redeem(listed)).json().details[0].message, /common/, listed);
      assert.equal((await redeem('short')).statusCode, 422);
      const used = await redeem('cavalo correto bateria grampo');
      assert.equal(used.statusCode, 200, used.body);
      assert.equal(used.json().user.role, 'owner');
      assert.equal((await redeem('cavalo correto bateria grampo')).statusCode, 404);
      const stored = await findUserByEmail(database.db, 'fabi@example.com');
      assert.match(stored!.password_hash!, /^scrypt\$32768\$8\$1\$/);
      await signIn(app, 'fabi@example.com', 'cavalo correto bateria grampo');
    });

    test('an expired link is refused', async () => {
      const user = await addUser(database, shop, 'support', 'gil@example.com');
      const token = await issueLink(
        database.db,
        { accountId: shop.accountId, userId: user.id },
        'sign_in',
        new Date(Date.now() - 2 * 3600_000),
      );
      const res = await app.inject({ method: 'POST', url: `${URL_BASE}/links/redeem`, payload: { token } });
      assert.equal(res.statusCode, 404);
    });

    test('with TOTP enabled, sign-in needs the current code', async () => {
      const user = await signIn(app, (await addUser(database, shop, 'finance', 'hugo@example.com')).email);
      const setup = await app.inject({ method: 'POST', url: `${URL_BASE}/totp/setup`, headers: as(user) });
      assert.equal(setup.statusCode, 200);
      const { secret, otpauth_uri } = setup.json() as { secret: string; otpauth_uri: string };
      assert.match(otpauth_uri, /^otpauth:\/\/totp\/Checkout%3Ahugo%40example\.com\?secret=/);
      const wrong = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/totp/enable`,
        headers: as(user),
        payload: { code: totpAt(secret, new Date(Date.now() - 300_000)) },
      });
      assert.equal(wrong.statusCode, 422);
      const enabled = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/totp/enable`,
        headers: as(user),
        payload: { code: totpAt(secret, new Date()) },
      });
      assert.equal(enabled.statusCode, 204);
      const withoutCode = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: 'hugo@example.com', password: PASSWORD },
      });
      assert.equal(withoutCode.statusCode, 401);
      assert.equal(withoutCode.json().details[0].field, 'body/totp_code');
      const withCode = await app.inject({
        method: 'POST',
        url: `${URL_BASE}/session`,
        payload: { email: 'hugo@example.com', password: PASSWORD, totp_code: totpAt(secret, new Date()) },
      });
      assert.equal(withCode.statusCode, 200);
    });

    test('the owner reads sign-ins and failures in the audit log', async () => {
      const owner = await signIn(app, 'dora@example.com');
      const res = await app.inject({
        method: 'GET',
        url: `${URL_BASE}/audit_log?limit=200`,
        headers: { cookie: owner.cookie },
      });
      assert.equal(res.statusCode, 200);
      const actions = (res.json().data as Array<{ actor: string; action: string }>).map(
        (entry) => `${entry.actor} ${entry.action}`,
      );
      assert.ok(actions.includes('dora@example.com user.signed_in'));
      assert.ok(actions.includes('bia@example.com user.sign_in_failed'));
      assert.ok(actions.includes('edu@example.com user.signed_out_everywhere'));
    });

    test('the dashboard operations are in the OpenAPI document under their own tag, with the one error body', async () => {
      const document = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
        paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>>;
      };
      const dashboard = Object.entries(document.paths).filter(([path]) => path.startsWith('/dashboard/'));
      assert.ok(dashboard.length >= 15, `${dashboard.length} dashboard paths`);
      for (const [path, methods] of dashboard)
        for (const [method, operation] of Object.entries(methods)) {
          assert.deepEqual(operation.tags, ['Dashboard'], `${method} ${path}`);
          assert.match(
            JSON.stringify(operation.responses['401'] ?? operation.responses['404']),
            /ErrorBody/,
            `${method} ${path}`,
          );
        }
    });

    test('teardown', async () => {
      await app.close();
      await database.close();
    });
  });
}
