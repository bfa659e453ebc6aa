import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { startTestApp } from '../support/app.ts';
import { engines } from '../support/engines.ts';

const [engine] = engines();

describe('the dashboard app is served under /dashboard', { timeout: 120_000 }, () => {
  let database: Database;
  let app: FastifyInstance;

  test('setup', async () => {
    database = await engine!.open();
    ({ app } = await startTestApp(database));
  });

  test('every app path gets the HTML shell with a strict CSP; the script and styles come from the same origin', async () => {
    for (const path of ['/dashboard', '/dashboard/orders/12?q=ana', '/dashboard/link']) {
      const res = await app.inject({ method: 'GET', url: path });
      assert.equal(res.statusCode, 200, path);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(String(res.headers['content-security-policy']), /script-src 'self';/);
      assert.doesNotMatch(String(res.headers['content-security-policy']), /unsafe-inline/);
      assert.match(res.body, /<script type="module" src="\/dashboard\/assets\/app\.js\?v=[0-9a-f]{12}"><\/script>/);
    }
    const script = await app.inject({ method: 'GET', url: '/dashboard/assets/app.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.ok(script.body.length > 10_000, 'the bundle holds Preact, the router and the app');
    assert.ok(script.body.includes('/api/v1/dashboard'), 'the app calls the dashboard API');
    const styles = await app.inject({ method: 'GET', url: '/dashboard/assets/app.css' });
    assert.match(String(styles.headers['content-type']), /^text\/css/);
  });

  test('teardown', async () => {
    await app.close();
    await database.close();
  });
});
