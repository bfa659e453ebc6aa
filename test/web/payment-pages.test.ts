import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { formatDigitableLine } from '../../src/brazil/boleto.ts';
import { pixQrForScreen } from '../../src/brazil/render/index.ts';
import type { Database } from '../../src/db/database.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { insertCompany, insertOrder, insertPayment, startAppAt } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertBoletoPayment, insertPixPayment } from '../support/payment-pages-fixtures.ts';
import { insertCustomer } from '../support/records-fixtures.ts';

const NOW = new Date('2030-03-01T12:00:00.000Z');
const IN_30_MINUTES = new Date(NOW.getTime() + 30 * 60_000);
const HOSTILE_NAME = 'Loja <script>alert("x")</script> & Cia';
const ESCAPED_NAME = 'Loja &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Cia';
const brl = (cents: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100);

/** The headers and document shape every hosted page has. */
function assertHostedDocument(res: LightMyRequestResponse, status: number): void {
  assert.equal(res.statusCode, status);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  const csp = String(res.headers['content-security-policy']);
  for (const directive of [
    "default-src 'none'",
    "img-src 'self' data:",
    "style-src 'unsafe-inline'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ])
    assert.ok(csp.includes(directive), directive);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(res.body, /^<!doctype html>\n<html lang="pt-BR">/);
  assert.match(res.body, /<meta name="robots" content="noindex, nofollow">/);
  assert.match(res.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.match(res.body, /<main>[\s\S]*<h1>[^<]+<\/h1>[\s\S]*<\/main>/);
}

/** The one script is allowed by the nonce the CSP names, and there is no other. */
function assertNonceScript(res: LightMyRequestResponse): void {
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(String(res.headers['content-security-policy']))?.[1];
  assert.ok(nonce, 'the CSP allows one nonce');
  assert.equal(res.body.match(/<script/g)?.length, 1);
  assert.ok(res.body.includes(`<script nonce="${nonce}">`));
  // The copy button is hidden until the script runs; no author style may un-hide it.
  assert.ok(res.body.includes('[hidden]{display:none!important}'));
}

const dataImage = (body: string, type: string) =>
  new RegExp(`<img[^>]+src="data:${type};base64,([A-Za-z0-9+/=]+)"[^>]*alt="([^"]+)"`).exec(body);

for (const engine of engines()) {
  describe(`hosted Pix and boleto pages on ${engine.name}`, { timeout: 60_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let customerId: number;

    before(async () => {
      database = await engine.open();
      app = await startAppAt(database, NOW);
      shop = await createTenant(database);
      await database.db
        .updateTable('companies')
        .set({ name: HOSTILE_NAME, document: '11222333000181' })
        .where('id', '=', shop.companyId)
        .execute();
      customerId = await insertCustomer(database, shop, { name: 'Zé <b>Pagador</b>', identification: '52998224725' });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    describe('GET /pay/pix/{uid}', () => {
      test('an open Pix shows the QR code, the copy-and-paste code, the BRL amount, the expiry on the company clock and the status', async () => {
        const payment = await insertPixPayment(database, shop, 123_456, IN_30_MINUTES);
        const code = (
          await database.db
            .selectFrom('payments')
            .select('pix_code')
            .where('uid', '=', payment.uid)
            .executeTakeFirstOrThrow()
        ).pix_code!;
        const res = await app.inject({ url: `/pay/pix/${payment.uid}` });
        assertHostedDocument(res, 200);
        assertNonceScript(res);
        assert.ok(res.body.includes(brl(123_456)));
        assert.ok(res.body.includes('R$\u00a01.234,56'));
        assert.ok(res.body.includes('01/03/2030, 09:30 BRT'), 'expiry in America/Sao_Paulo');
        // One live status line, a countdown the script fills, and the order number.
        assert.match(
          res.body,
          /<p id="pix-status" class="status" role="status" aria-live="polite"[^>]*>Aguardando pagamento<\/p>/,
        );
        assert.match(res.body, /<p id="pix-countdown" data-expires-at="2030-03-01T12:30:00.000Z"/);
        assert.match(res.body, /<dt>Pedido<\/dt><dd>nº [0-9A-F]{8}<\/dd>/);
        const qr = dataImage(res.body, 'image/png');
        assert.ok(qr, 'a data: PNG QR code with alt text');
        assert.equal(qr[1], (await pixQrForScreen(code)).base64);
        assert.match(qr[2]!, /^QR Code Pix para pagar R\$\u00a01\.234,56 a /);
        assert.match(
          res.body,
          /<label for="pix-code">Código Pix copia e cola<\/label>\s*<textarea id="pix-code"[^>]*readonly[^>]*>([^<]+)<\/textarea>/,
        );
        assert.ok(res.body.includes(`>${code}</textarea>`));
        assert.match(
          res.body,
          /<button type="button" data-copy="pix-code" data-copied="Código Pix copiado[^"]*" hidden>Copiar código Pix<\/button>/,
        );
      });

      test('dynamic text is HTML-escaped', async () => {
        const payment = await insertPixPayment(database, shop, 1_000, IN_30_MINUTES);
        const res = await app.inject({ url: `/pay/pix/${payment.uid}` });
        assert.ok(res.body.includes(ESCAPED_NAME));
        assert.ok(!res.body.includes('<script>alert'));
        assert.ok(!res.body.includes(HOSTILE_NAME));
      });

      test('a stored code that is not a BR Code still shows the code to copy, without a QR image', async () => {
        const payment = await insertPixPayment(database, shop, 1_000, IN_30_MINUTES, {
          row: { pix_code: 'not-a-br-code' },
        });
        const res = await app.inject({ url: `/pay/pix/${payment.uid}` });
        assertHostedDocument(res, 200);
        assert.ok(!res.body.includes('<img'));
        assert.ok(res.body.includes('>not-a-br-code</textarea>'));
        assert.ok(res.body.includes('Use o código abaixo no aplicativo do seu banco.'));
      });

      test('the expiry is shown in the company’s own time zone', async () => {
        const manaus = await insertCompany(database, shop, { time_zone: 'America/Manaus' });
        const payment = await insertPixPayment(database, shop, 1_000, IN_30_MINUTES, { companyId: manaus });
        const res = await app.inject({ url: `/pay/pix/${payment.uid.toUpperCase()}` });
        assert.equal(res.statusCode, 200);
        assert.ok(res.body.includes('01/03/2030, 08:30'), res.body);
      });

      test('an expired, paid or lapsed Pix shows its status and no code to pay', async () => {
        const cases: Array<[string, Date, string]> = [
          ['waiting_payment', new Date(NOW.getTime() - 1), 'Expirado'],
          ['waiting_payment', NOW, 'Expirado'],
          ['paid', IN_30_MINUTES, 'Pago'],
          ['cancelled', IN_30_MINUTES, 'Expirado'],
          ['refunded', IN_30_MINUTES, 'Estornado'],
        ];
        for (const [status, expiresAt, label] of cases) {
          const payment = await insertPixPayment(database, shop, 5_000, expiresAt, { row: { status } });
          const res = await app.inject({ url: `/pay/pix/${payment.uid}` });
          assertHostedDocument(res, 200);
          assert.ok(res.body.includes(`Situação: ${label}`), `${status} → ${label}`);
          assert.ok(
            !res.body.includes('<img') && !res.body.includes('<textarea') && !res.body.includes('<script'),
            status,
          );
          assert.ok(!String(res.headers['content-security-policy']).includes('script-src'));
          assert.ok(res.body.includes(brl(5_000)));
        }
      });

      test('an unknown uid, a malformed one, a card or boleto payment, or a Pix not yet issued is a 404 page', async () => {
        const order = await insertOrder(database, shop);
        const card = await insertPayment(database, shop, order.id, { method: 'credit_card', status: 'paid' });
        const boleto = await insertBoletoPayment(database, shop, 2_000, '2030-03-05');
        const pending = await insertPayment(database, shop, order.id, { method: 'pix', status: 'pending' });
        for (const uid of [randomUUID(), 'not-a-uuid', card.uid, boleto.uid, pending.uid]) {
          const res = await app.inject({ url: `/pay/pix/${uid}` });
          assertHostedDocument(res, 404);
          assert.ok(res.body.includes('Pagamento não encontrado'), uid);
        }
      });
    });

    describe('GET /pay/boleto/{uid} and its PDF', () => {
      test('the page shows the formatted digitable line, the barcode, amount, due date, beneficiary, payer and the PDF link', async () => {
        await database.db
          .updateTable('companies')
          .set({ legal_name: 'Exemplo Comércio <Ltda>' })
          .where('id', '=', shop.companyId)
          .execute();
        try {
          const payment = await insertBoletoPayment(database, shop, 102_656, '2030-03-05', { customerId });
          const res = await app.inject({ url: `/pay/boleto/${payment.uid}` });
          assertHostedDocument(res, 200);
          assertNonceScript(res);
          assert.ok(res.body.includes(`>${formatDigitableLine(payment.digitableLine)}</textarea>`));
          assert.match(res.body, /<label for="boleto-line">Linha digitável do boleto<\/label>/);
          const barcode = dataImage(res.body, 'image/svg\\+xml');
          assert.ok(barcode, 'a data: SVG barcode with alt text');
          assert.match(Buffer.from(barcode[1]!, 'base64').toString('utf8'), /<svg[\s\S]*<\/svg>/);
          assert.ok(res.body.includes('R$\u00a01.026,56'));
          assert.ok(res.body.includes('<dd>05/03/2030</dd>'));
          assert.ok(res.body.includes('<dd>Exemplo Comércio &lt;Ltda&gt; — 11.222.333/0001-81</dd>'));
          assert.ok(res.body.includes('<dd>Zé &lt;b&gt;Pagador&lt;/b&gt; — 529.982.247-25</dd>'));
          // The ficha de compensação's fields, read back from the Banco do Brasil free field where they live.
          const ourNumber = `3000003${payment.barcode.slice(32, 42)}`;
          const slip = Object.fromEntries(
            [...res.body.matchAll(/<dt>([^<]+)<\/dt><dd>([^<]*)<\/dd>/g)].map((match) => [match[1], match[2]]),
          );
          assert.equal(slip['Nosso número'], ourNumber);
          assert.equal(slip['Agência/Código do beneficiário'], '3000003');
          assert.equal(slip['Carteira'], '17');
          assert.equal(slip['Espécie'], 'R$');
          assert.equal(slip['Espécie doc.'], 'DM');
          assert.equal(slip['Aceite'], 'N');
          assert.match(slip['Nº do documento']!, /^[0-9A-F]{8}$/);
          assert.match(slip['Data do documento']!, /^\d{2}\/\d{2}\/\d{4}$/);
          assert.equal(slip['Data de processamento'], slip['Data do documento']);
          assert.equal(slip['(=) Valor do documento'], 'R$\u00a01.026,56');
          assert.equal(slip['(=) Valor cobrado'], 'R$\u00a01.026,56');
          assert.equal('(+) Juros/Multa' in slip, false);
          assert.match(res.body, /<ul class="instructions"><li>(Após o vencimento|Não cobrar)/);
          assert.ok(res.body.includes(`href="${payment.uid}.pdf"`));
          assert.ok(res.body.includes('Situação: Aguardando pagamento'));
        } finally {
          await database.db
            .updateTable('companies')
            .set({ legal_name: null })
            .where('id', '=', shop.companyId)
            .execute();
        }
      });

      test('without a legal name the beneficiary is the company name, escaped; without a buyer the payer is unidentified', async () => {
        const payment = await insertBoletoPayment(database, shop, 5_000, '2030-03-05');
        const res = await app.inject({ url: `/pay/boleto/${payment.uid}` });
        assert.equal(res.statusCode, 200);
        assert.ok(res.body.includes(`<dd>${ESCAPED_NAME} — 11.222.333/0001-81</dd>`));
        assert.ok(!res.body.includes('<script>alert'));
        assert.ok(res.body.includes('<dd>Pagador não identificado</dd>'));
      });

      test('a paid boleto says so', async () => {
        const payment = await insertBoletoPayment(database, shop, 5_000, '2030-03-05', { row: { status: 'paid' } });
        const res = await app.inject({ url: `/pay/boleto/${payment.uid}` });
        assert.ok(res.body.includes('Situação: Pago'));
      });

      test('the PDF is served inline with its file name and private headers', async () => {
        const payment = await insertBoletoPayment(database, shop, 102_656, '2030-03-05', { customerId });
        const res = await app.inject({ url: `/pay/boleto/${payment.uid}.pdf` });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'application/pdf');
        assert.equal(res.headers['content-disposition'], `inline; filename="boleto-${payment.uid}.pdf"`);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.equal(res.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
        assert.ok(res.rawPayload.length > 2_000);
      });

      test('an unknown uid, a malformed one, a card or Pix payment, or a boleto not yet issued is a 404 page, for the page and the PDF', async () => {
        const order = await insertOrder(database, shop);
        const card = await insertPayment(database, shop, order.id, { method: 'credit_card', status: 'paid' });
        const pix = await insertPixPayment(database, shop, 1_000, IN_30_MINUTES);
        const pending = await insertPayment(database, shop, order.id, { method: 'bank_slip', status: 'pending' });
        for (const uid of [randomUUID(), 'not-a-uuid', card.uid, pix.uid, pending.uid]) {
          for (const url of [`/pay/boleto/${uid}`, `/pay/boleto/${uid}.pdf`]) {
            const res = await app.inject({ url });
            assertHostedDocument(res, 404);
            assert.ok(res.body.includes('Pagamento não encontrado'), url);
          }
        }
      });
    });
  });
}
