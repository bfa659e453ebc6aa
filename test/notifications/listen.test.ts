import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Receiver, type Received } from './receiver.ts';
import { createFreshPostgresDatabase } from '../support/engines.ts';
import { startService, type Child, type RunningService } from '../support/service-process.ts';

type Body = { id: string; type: string; data: { order: { id: number; uid: string }; refund?: { payment_id: number } } };
type Triggered = { event: string; order_id: number; order_uid: string; payment_id: number; gateway_id: string };

const bodyOf = (request: Received) => JSON.parse(request.body) as Body;

/** Waits until `count` requests reached the receiver (the service's worker delivers them on its own). */
async function received(receiver: Receiver, count: number, timeoutMs = 60_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  while (receiver.received.length < count) {
    if (Date.now() > deadline)
      throw new Error(
        `${receiver.received.length} of ${count} deliveries: ${receiver.received.map((r) => bodyOf(r).type)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return receiver.received;
}

/** `checkout listen` against the service, with the secret it printed. */
async function listen(service: RunningService, receiver: Receiver, ...extra: string[]) {
  const url = await receiver.start();
  const child = service.spawnCli('listen', '--account', 'demo', '--forward-to', url, ...extra);
  const [, secret] = await child.waitFor(/signing secret for this session is (whsec_\S+)/);
  receiver.options.secrets = [secret!];
  return child;
}

async function trigger(service: RunningService, event: string): Promise<Triggered> {
  return JSON.parse((await service.cli('trigger', event, '--account', 'demo')).stdout) as Triggered;
}

/** The service as `npm start` runs it (PGlite in a fresh DATA_DIR), and on PostgreSQL when DATABASE_URL is set. */
function targets() {
  const list = [{ name: 'PGlite', database: async () => ({}), drop: async () => {} }];
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    let fresh: Awaited<ReturnType<typeof createFreshPostgresDatabase>> | undefined;
    list.push({
      name: 'PostgreSQL',
      database: async () => {
        fresh = await createFreshPostgresDatabase(baseUrl);
        return { DATABASE_URL: fresh.url };
      },
      drop: async () => fresh?.drop(),
    });
  }
  return list;
}

for (const target of targets()) {
  describe(
    `checkout listen and checkout trigger against the running service on ${target.name}`,
    { timeout: 900_000 },
    () => {
      let service: RunningService;
      const receivers: Receiver[] = [];
      const listeners: Child[] = [];
      const newReceiver = () => {
        const receiver = new Receiver({ secrets: [], now: () => new Date() });
        receivers.push(receiver);
        return receiver;
      };

      before(async () => {
        service = await startService(await target.database());
      });
      after(async () => {
        for (const child of listeners) child.child.kill('SIGKILL');
        await Promise.all(receivers.map((receiver) => receiver.close()));
        await service?.stop();
        await target.drop();
      });

      test('listen forwards the filtered events produced while it runs, signed as in production, and stops on SIGINT', async () => {
        const receiver = newReceiver();
        const child = await listen(service, receiver, '--events', 'order.paid,order.chargeback');
        listeners.push(child);
        const chargeback = await trigger(service, 'order.chargeback');
        assert.equal(chargeback.event, 'order.chargeback');

        // The chargeback also refunds the order (order.refunded), which this session did not ask for.
        const requests = await received(receiver, 2);
        const bodies = requests.map(bodyOf);
        assert.deepEqual(bodies.map((body) => body.type).sort(), ['order.chargeback', 'order.paid']);
        assert.ok(
          bodies.every(
            (body) => body.data.order.id === chargeback.order_id && body.data.order.uid === chargeback.order_uid,
          ),
        );
        assert.ok(requests.every((request) => request.verifiedBy.length === 1 && request.answered === 200));
        assert.ok(requests.every((request) => request.headers['checkout-event-type'] === bodyOf(request).type));
        for (const body of bodies)
          await child.waitFor(new RegExp(`  ${body.type.replace('.', '\\.')}  ${body.id}  \\[200\\]`));

        child.child.kill('SIGINT');
        assert.equal(await child.exited, 0);
        assert.ok(child.lines.some((line) => line.includes('the listen session has ended')));

        // A second session proves the events of a later payment went out; the ended one got none of them.
        const second = newReceiver();
        const other = await listen(service, second, '--events', 'order.paid');
        listeners.push(other);
        const paid = await trigger(service, 'payment.paid');
        const [delivered] = await received(second, 1);
        assert.equal(bodyOf(delivered!).data.order.id, paid.order_id);
        assert.equal(receiver.received.length, 2);
        other.child.kill('SIGTERM');
        assert.equal(await other.exited, 0);
      });

      test('each supported trigger yields its notification, for the order and payment it printed', async () => {
        const receiver = newReceiver();
        const child = await listen(service, receiver);
        listeners.push(child);
        const expected: Array<[string, string]> = [
          ['order.paid', 'order.paid'],
          ['refund.succeeded', 'refund.succeeded'],
          ['order.refunded', 'order.refunded'],
          ['chargeback', 'order.chargeback'],
        ];
        for (const [event, type] of expected) {
          const done = await trigger(service, event);
          assert.ok(Number.isInteger(done.order_id) && Number.isInteger(done.payment_id));
          const deadline = Date.now() + 60_000;
          let match: Body | undefined;
          while (!match && Date.now() < deadline) {
            match = receiver.received
              .map(bodyOf)
              .find((body) => body.type === type && body.data.order.id === done.order_id);
            if (!match) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.ok(match, `${event}: no ${type} for order ${done.order_id}`);
          if (type === 'refund.succeeded') assert.equal(match.data.refund!.payment_id, done.payment_id);
        }
        assert.ok(receiver.received.every((request) => request.verifiedBy.length === 1));
        child.child.kill('SIGINT');
        assert.equal(await child.exited, 0);
      });

      test('usage mistakes exit 64: an unknown event lists the supported ones; a forward target off this machine is refused', async () => {
        const unknown = await service.cli('trigger', 'order.teleported', '--account', 'demo').catch((error) => error);
        assert.equal(unknown.code, 64);
        assert.match(unknown.stderr, /unsupported event "order\.teleported"/);
        for (const event of ['payment.paid', 'refund.succeeded', 'order.chargeback'])
          assert.ok(unknown.stderr.includes(event));
        const remote = await service
          .cli('listen', '--account', 'demo', '--forward-to', 'https://example.com/hooks')
          .catch((error) => error);
        assert.equal(remote.code, 64);
        assert.match(remote.stderr, /on this machine/);
      });

      test('the operator routes refuse a request without the operator token', async () => {
        const response = await fetch(`${service.url}/cli/v1/trigger_kits`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
          body: JSON.stringify({ account: 'demo' }),
        });
        assert.equal(response.status, 401);
        assert.equal(((await response.json()) as { code: string }).code, 'authentication_required');
      });
    },
  );
}
