/**
 * One payment attempt in flight per charge and per cart, across processes: twenty concurrent pays of one charge
 * (gateway_a) and of one cart (gateway_b), sent alternately to two API processes on one PostgreSQL, give one
 * capture in the standalone sandbox's own ledger. No worker runs, so no orphan-capture job can have given anything
 * back: the claim alone keeps the books right.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VOID_ORPHAN_JOB } from '../../src/modules/payments/attempts/orphan-capture.ts';
import { confirmationTokenB, insertCart, insertCharge, tokenA } from '../support/pay-fixtures.ts';
import {
  deploy,
  NO_RATE_LIMITS,
  postgresUrl,
  postJson,
  PUBLIC_ORIGIN,
  type Answer,
  type Deployed,
} from './support/deployment.ts';
import { chargeViolations, sandboxLedger } from './support/invariants.ts';
import { Processes } from './support/processes.ts';
import { freePort } from '../support/ports.ts';

const baseUrl = postgresUrl();
const CONCURRENT = 20;

describe(
  'one payment attempt in flight across two API processes',
  { skip: baseUrl ? false : 'needs DATABASE_URL (PostgreSQL)', timeout: 240_000 },
  () => {
    let deployed: Deployed;
    let processes: Processes;
    let apis: string[] = [];
    let gateways: Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>;
    const sandboxes = { baseUrlFor: (name: 'gateway_a' | 'gateway_b' | 'gateway_c') => gateways[name] };

    before(async () => {
      deployed = await deploy(baseUrl!);
      processes = new Processes({
        databaseUrl: deployed.databaseUrl,
        masterKey: deployed.masterKey,
        env: NO_RATE_LIMITS,
      });
      const [sandboxPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
      apis = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
      gateways = (await processes.sandbox(sandboxPort, apis[0]!)).urls;
      await Promise.all([processes.api('api-a', portA, gateways), processes.api('api-b', portB, gateways)]);
    });

    after(async () => {
      await processes?.stopAll();
      await deployed?.drop();
    });

    /** The Idempotency-Key of a burst's request: the path names the charge or cart, the index the request. */
    const keyOf = (path: string, index: number) => `${path}#${index}`;
    /** Sends every body at once, alternately to the two processes, each under its own Idempotency-Key. */
    const burst = (path: string, bodies: Array<Record<string, unknown>>) =>
      Promise.all(
        bodies.map((body, index) =>
          postJson(`${apis[index % 2]}/api/v1${path}`, body, {
            ...PUBLIC_ORIGIN,
            'idempotency-key': keyOf(path, index),
          }),
        ),
      );
    const ledgerOf = async (orderUids: string[]) =>
      (await sandboxLedger(gateways)).filter((charge) => orderUids.includes(charge.metadata.order_uid ?? ''));

    /** One 200 that paid; every other answer a 409 `payment_in_progress` with Retry-After, or the paid subject's 422. */
    function winnerOf(answers: Answer[], paid: (body: any) => boolean): number {
      const summary = answers.map((answer) => `${answer.status} ${JSON.stringify(answer.body)}`).join('\n');
      const winners = answers.flatMap((answer, index) => (answer.status === 200 ? [index] : []));
      assert.equal(winners.length, 1, summary);
      assert.ok(paid(answers[winners[0]!]!.body), summary);
      for (const answer of answers) {
        if (answer.status === 409) {
          assert.equal(answer.body.code, 'payment_in_progress', summary);
          assert.match(answer.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
        } else if (answer.status !== 200)
          assert.deepEqual([answer.status, answer.body.code], [422, 'business_rule_violation']);
      }
      return winners[0]!;
    }

    test('twenty concurrent pays of one charge: one capture; the winner replays from the other process, a refused key runs again', async () => {
      const charge = await insertCharge(deployed.database, deployed.merchant);
      const plan = `${deployed.merchant.cardPlanId}-1`;
      const bodies = await Promise.all(
        Array.from({ length: CONCURRENT }, async () => ({
          payment_plan_id: plan,
          credit_card_0_token: await tokenA(sandboxes),
        })),
      );
      const path = `/charges/${charge.uid}/pay`;
      const answers = await burst(path, bodies);
      const winner = winnerOf(answers, (body) => body.status === 'paid');
      assert.deepEqual(
        (await ledgerOf([charge.uid])).map((entry) => [entry.gateway, entry.state, entry.amount_cents]),
        [['gateway_a', 'paid', 10_000]],
      );

      const otherApi = apis[(winner + 1) % 2]!;
      const replay = await postJson(`${otherApi}/api/v1${path}`, bodies[winner], {
        ...PUBLIC_ORIGIN,
        'idempotency-key': keyOf(path, winner),
      });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, answers[winner]!.body);
      const refused = answers.findIndex((answer) => answer.status === 409);
      const rerun = await postJson(`${otherApi}/api/v1${path}`, bodies[refused], {
        ...PUBLIC_ORIGIN,
        'idempotency-key': keyOf(path, refused),
      });
      // The 409 was not kept under its key: the request ran again and found the charge paid.
      assert.deepEqual(
        [rerun.status, rerun.body.code, rerun.headers.get('idempotent-replayed')],
        [422, 'business_rule_violation', null],
      );
    });

    test('twenty concurrent pays of one cart on gateway_b: one order, one capture, nothing for the orphan job', async () => {
      const cartId = await insertCart(deployed.database, deployed.merchant, { gateway: 'gateway_b' });
      const plan = `${deployed.merchant.cardPlanId}-1`;
      const bodies = await Promise.all(
        Array.from({ length: CONCURRENT }, async () => ({
          payment_plan_id: plan,
          confirmation_token_id: await confirmationTokenB(sandboxes),
        })),
      );
      winnerOf(await burst(`/carts/${cartId}/pay`, bodies), (body) => body.order_status === 'paid');
      const db = deployed.database.db;
      const orders = await db.selectFrom('orders').select(['uid', 'status']).where('cart_id', '=', cartId).execute();
      assert.deepEqual(
        orders.map((order) => order.status),
        ['paid'],
      );
      assert.deepEqual(
        (await ledgerOf(orders.map((order) => order.uid))).map((entry) => [
          entry.gateway,
          entry.state,
          entry.amount_cents,
        ]),
        [['gateway_b', 'paid', 11_500]],
      );
      const orphanVoids = await db.selectFrom('jobs').select('id').where('type', '=', VOID_ORPHAN_JOB).execute();
      assert.deepEqual(orphanVoids, []);
      assert.deepEqual(await chargeViolations(deployed.database, await sandboxLedger(gateways)), []);
    });
  },
);
