import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../http/app-context.ts';
import { boletoPdf } from '../../brazil/render/index.ts';
import { renderBoletoPage } from './boleto-page.ts';
import { boletoSheet, type IssuedBoleto } from './boleto-sheet.ts';
import { html, page, privateDocumentHeaders, sendHtml } from './html.ts';
import { findHostedPayment, findOrderLines, type HostedPayment } from './payment-pages.repo.ts';
import { renderPixPage } from './pix-page.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type UidRoute = { Params: { uid: string } };

/**
 * Hosted Pix and boleto pages at the root (`/pay/pix/{uid}`, `/pay/boleto/{uid}`, `/pay/boleto/{uid}.pdf`).
 * Open access: the payment UID is an unguessable capability, so the responses are never cached or indexed.
 */
export function registerHostedPaymentPages(app: FastifyInstance, { database, clock }: AppContext): void {
  const { db } = database;
  const options = { schema: { hide: true }, config: { access: 'open' as const, rateLimit: 'public' as const } };
  const find = (uid: string, method: 'pix' | 'bank_slip') =>
    UUID.test(uid) ? findHostedPayment(db, uid.toLowerCase(), method) : Promise.resolve(undefined);

  app.get<UidRoute>('/pay/pix/:uid', options, async (request, reply) => {
    const payment = await find(request.params.uid, 'pix');
    if (!payment?.pix_code) return notFoundPage(reply);
    const lines = await findOrderLines(db, payment.account_id, payment.order_id);
    const rendered = await renderPixPage(
      { ...payment, pix_code: payment.pix_code },
      lines,
      clock(),
      newNonce(),
      (error) => request.log.warn({ err: error }, 'stored pix code cannot be drawn as a QR code'),
    );
    return sendHtml(reply, 200, rendered.document, rendered.nonce);
  });

  app.get<UidRoute>('/pay/boleto/:uid', options, async (request, reply) => {
    const payment = issued(await find(request.params.uid, 'bank_slip'));
    if (!payment) return notFoundPage(reply);
    const rendered = await renderBoletoPage(payment, clock(), newNonce());
    return sendHtml(reply, 200, rendered.document, rendered.nonce);
  });

  app.get<UidRoute>('/pay/boleto/:uid.pdf', options, async (request, reply) => {
    const payment = issued(await find(request.params.uid, 'bank_slip'));
    if (!payment) return notFoundPage(reply);
    const pdf = await boletoPdf(boletoSheet(payment));
    return privateDocumentHeaders(reply)
      .type('application/pdf')
      .header('content-disposition', `inline; filename="boleto-${payment.uid}.pdf"`)
      .send(pdf);
  });
}

/** A boleto payment the gateway has issued (barcode, line and due date known). */
function issued(payment: HostedPayment | undefined): IssuedBoleto | undefined {
  if (!payment?.boleto_barcode || !payment.boleto_digitable_line || !payment.boleto_due_date) return undefined;
  return {
    ...payment,
    boleto_barcode: payment.boleto_barcode,
    boleto_digitable_line: payment.boleto_digitable_line,
    boleto_due_date: payment.boleto_due_date,
  };
}

function newNonce(): string {
  return randomBytes(16).toString('base64');
}

function notFoundPage(reply: FastifyReply): FastifyReply {
  const body = html`<h1>Pagamento não encontrado</h1>
<p>Este link de pagamento não existe ou não é mais válido. Confira o endereço ou peça um novo link a quem fez a cobrança.</p>`;
  return sendHtml(reply, 404, page('Pagamento não encontrado', body));
}
