import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createSign, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { operatorToken } from '../../src/lib/operator-token.ts';
import { stringToSign } from '../../src/modules/webhooks/sns-signature.ts';
import { startService, type RunningService } from '../support/service-process.ts';

const TOPIC = 'arn:aws:sns:sa-east-1:123456789012:payments';

/**
 * With the openssl CLI: a throwaway CA, a `localhost` server certificate it signs, and two signing keys with
 * their self-signed certificates (the one the certificate host serves, and another one).
 */
function makeCertificates() {
  const dir = mkdtempSync(join(tmpdir(), 'topic-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  for (const name of ['signing', 'other'])
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}.sns.test`,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.pem`),
    );
  const read = (name: string) => readFileSync(file(name), 'utf8');
  return {
    caPath: file('ca.pem'),
    server: { key: read('server.key'), cert: read('server.pem') },
    signing: { key: read('signing.key'), cert: read('signing.pem') },
    otherKey: read('other.key'),
  };
}

describe(
  'topic receiver verifying for real: signing certificate over HTTPS from a host trusted through a test CA',
  { timeout: 300_000 },
  () => {
    const certificates = makeCertificates();
    let certificateHost: Server;
    let certificateUrl: string;
    let service: RunningService;
    const certificateRequests: string[] = [];

    before(async () => {
      certificateHost = createServer(certificates.server, (request, response) => {
        certificateRequests.push(request.url ?? '');
        if (request.url === '/SimpleNotificationService-test.pem') return void response.end(certificates.signing.cert);
        response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => certificateHost.listen(0, '127.0.0.1', resolve));
      const { port } = certificateHost.address() as AddressInfo;
      certificateUrl = `https://localhost:${port}/SimpleNotificationService-test.pem`;
      // NODE_EXTRA_CA_CERTS is read when a process starts: hence a service process of its own.
      service = await startService({
        TOPIC_CERT_HOSTS: 'localhost',
        TOPIC_ARNS: TOPIC,
        NODE_EXTRA_CA_CERTS: certificates.caPath,
      });
    });
    after(async () => {
      await service?.stop();
      certificateHost?.close();
    });

    const call = async (path: string, init: { method?: string; bearer?: string; body?: unknown } = {}) => {
      const response = await fetch(`${service.url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${init.bearer ?? operatorToken(Buffer.from(service.env.MASTER_KEY!, 'hex'))}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const sign = (message: Record<string, string>, key: string) => ({
      ...message,
      SignatureVersion: '2',
      SigningCertURL: certificateUrl,
      Signature: createSign('RSA-SHA256').update(stringToSign(message)).sign(key, 'base64'),
    });
    const post = (message: unknown) =>
      fetch(`${service.url}/api/v1/webhooks/topic`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
        body: JSON.stringify(message),
      });

    test('the certificate host is not trusted without the test CA', async () => {
      await assert.rejects(fetch(certificateUrl));
    });

    test('a bank event signed with the test key is verified and applied once; one signed with another key is refused', async () => {
      // A waiting pix of the demo merchant, made through the API with a trigger kit's short-lived key.
      const kit = await call('/cli/v1/trigger_kits', { method: 'POST', body: { account: 'demo' } });
      const email = `topic+${randomBytes(4).toString('hex')}@example.com`;
      const paid = await call('/api/v1/payments', {
        method: 'POST',
        bearer: kit.api_key as string,
        body: {
          checkout_page_id: kit.checkout_page_id,
          products: [{ id: kit.product_id, quantity: 1 }],
          customer_email: email,
          payment_plan_id: kit.pix_payment_plan_id,
        },
      });
      const gatewayId = (paid.payments as string[])[0]!;
      const orderOf = async () => {
        const listed = await call(`/api/v1/orders?q=${encodeURIComponent(email)}`, { bearer: kit.api_key as string });
        return (
          listed.data as Array<{ id: number; status: string; total: number; payments: Array<{ status: string }> }>
        )[0]!;
      };
      const waiting = await orderOf();
      assert.equal(waiting.status, 'waiting_payment');

      const notification = (companyId: number) => ({
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: TOPIC,
        Timestamp: new Date().toISOString(),
        Message: JSON.stringify({
          source: 'bank',
          company_id: companyId,
          event: {
            id: `b-${randomUUID()}`,
            type: 'pix.received',
            data: { gateway_id: gatewayId, amount: Math.round(waiting.total * 100), paid_at: new Date().toISOString() },
          },
        }),
      });
      const companyId = Number(kit.company_id);
      const forged = await post(sign(notification(companyId), certificates.otherKey));
      assert.equal(forged.status, 403);
      assert.equal((await orderOf()).status, 'waiting_payment');

      const message = sign(notification(companyId), certificates.signing.key);
      const first = await post(message);
      assert.equal(first.status, 200, await first.clone().text());
      assert.deepEqual(await first.json(), { status: 'processed' });
      const paidOrder = await orderOf();
      assert.equal(paidOrder.status, 'paid');
      assert.deepEqual(
        paidOrder.payments.map((payment) => payment.status),
        ['paid'],
      );

      const again = await post(message);
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), { status: 'duplicate' });
      assert.deepEqual(await orderOf(), paidOrder);
      // The certificate came over HTTPS from the local host, fetched by the service's own verification code.
      assert.ok(certificateRequests.includes('/SimpleNotificationService-test.pem'));
    });
  },
);
