import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { createTenant, startTestApp } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { as, userSignedIn } from './support.ts';

type Received = { from: string; to: string[]; raw: string };

/** A real SMTP server on a free local port, keeping every message it accepts. */
async function startSmtp(): Promise<{ server: SMTPServer; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port, received };
}

/** The message with quoted-printable soft breaks and escapes undone (nodemailer wraps long lines that way). */
function quotedPrintableText(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

const [engine] = engines();

describe('invite e-mail through SMTP_URL', () => {
  let database: Database;
  let app: FastifyInstance;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  before(async () => {
    smtp = await startSmtp();
    database = await engine!.open();
    ({ app } = await startTestApp(database, {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Loja <painel@loja.example>',
    }));
  });
  after(async () => {
    await app.close();
    await database.close();
    await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
  });

  test('the invite is e-mailed with the one-time link, and the link works', async () => {
    const tenant = await createTenant(database);
    const owner = await userSignedIn(app, database, tenant, 'owner');
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/dashboard/users',
      headers: as(owner),
      payload: { email: 'nova@loja.example', role: 'support' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const invited = res.json() as { invite_url: string; emailed: boolean };
    assert.equal(invited.emailed, true);
    assert.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    assert.equal(mail!.from, 'painel@loja.example');
    assert.deepEqual(mail!.to, ['nova@loja.example']);
    assert.match(mail!.raw, /^Subject: .+$/m);
    assert.ok(quotedPrintableText(mail!.raw).includes(invited.invite_url), mail!.raw);

    const token = new URL(invited.invite_url).hash.slice(1);
    const inspected = await app.inject({ method: 'POST', url: '/api/v1/dashboard/links/inspect', payload: { token } });
    assert.equal(inspected.statusCode, 200, inspected.body);
    assert.equal(inspected.json().email, 'nova@loja.example');
  });
});
