import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../http/app-context.ts';
import { companyFromHost } from '../../modules/accounts/index.ts';
import { openOfferToken } from '../../modules/payments/index.ts';
import { clientBundle } from './client-bundle.ts';
import { checkoutPolicy, layout, newNonce, sendPage } from './checkout.layout.ts';
import {
  isUuid,
  loadCart,
  loadCharge,
  loadCheckoutPage,
  quotedBaseCents,
  type HostedCheckout,
} from './checkout.model.ts';
import { chargeDoneBody } from './charge-done.ts';
import { findPaymentStatus } from './checkout.repo.ts';
import { receipt } from './payment-receipt.ts';
import { brandHeader, checkoutBody, closedBody, messageBody } from './checkout.view.ts';
import { sendCustomCode } from './custom-code.ts';

type IdRoute = { Params: { id: string } };
const OPEN = { schema: { hide: true }, config: { access: 'open' as const, rateLimit: 'public' as const } };

/**
 * The hosted checkout pages at the root: `/pay/{checkout page id}`, `/p/{checkout page id}` on a company
 * host, `/pay/carts/{uid}`, `/pay/charges/{uid}` (+ `/done`), the payment status poll and the client bundle.
 */
export function registerHostedCheckoutPages(
  app: FastifyInstance,
  { config, database, gatewayUrls, clock }: AppContext,
): void {
  const { db } = database;
  const publicHostname = new URL(config.publicUrl).hostname;

  const render = async (reply: FastifyReply, checkout: HostedCheckout | undefined) => {
    if (!checkout) return notFoundPage(reply);
    if (checkout.closed) return closedPage(reply, { ...checkout, closed: checkout.closed });
    const totalCents = await quotedBaseCents(db, checkout, clock());
    const gatewayUrl = gatewayUrls[checkout.gateway as keyof typeof gatewayUrls];
    const nonce = newNonce();
    const document = layout({
      title: checkout.title,
      mainColor: checkout.mainColor,
      index: checkout.indexOnSearchEngines,
      header: brandHeader(checkout),
      body: checkoutBody(checkout, gatewayUrl, totalCents),
      nonce,
    });
    return sendPage(
      reply,
      200,
      document,
      checkoutPolicy(nonce, gatewayUrl ? [new URL(gatewayUrl).origin] : []),
      checkout.indexOnSearchEngines,
    );
  };

  app.get<IdRoute>('/pay/:id', OPEN, async (request, reply) =>
    render(reply, await loadCheckoutPage(db, request.params.id)),
  );

  // The company host form: `<company slug>.<PUBLIC_URL host>/p/{id}` serves only that company's pages.
  app.get<IdRoute>('/p/:id', OPEN, async (request, reply) => {
    const company = await companyFromHost(db, request.headers.host, publicHostname);
    const checkout = company ? await loadCheckoutPage(db, request.params.id) : undefined;
    return render(reply, checkout && checkout.companyId === company?.id ? checkout : undefined);
  });

  app.get<IdRoute>('/pay/carts/:id', OPEN, async (request, reply) =>
    render(reply, await loadCart(db, request.params.id)),
  );
  app.get<IdRoute>('/pay/charges/:id', OPEN, async (request, reply) =>
    render(reply, await loadCharge(db, request.params.id, clock())),
  );

  app.get<IdRoute>('/pay/charges/:id/done', OPEN, async (request, reply) => {
    const body = isUuid(request.params.id) ? await chargeDoneBody(db, request.params.id.toLowerCase()) : undefined;
    if (!body) return notFoundPage(reply);
    const document = layout({
      title: 'Obrigado',
      mainColor: '#1a73e8',
      index: false,
      header: brandHeader({ title: 'Obrigado', menus: [] }),
      body,
    });
    return sendPage(reply, 200, document, checkoutPolicy(undefined, []));
  });

  // Status poll of a pix or boleto shown inline: the payment UID is the capability, like /pay/pix/{uid}.
  // Once the order is paid, its upsell offer (released by the worker after a later confirmation) is shown
  // to the buyer here while it is still open.
  app.get<IdRoute>('/pay/status/:id', OPEN, async (request, reply) => {
    const payment = isUuid(request.params.id)
      ? await findPaymentStatus(db, request.params.id.toLowerCase())
      : undefined;
    reply.header('cache-control', 'no-store');
    if (!payment) return reply.code(404).send({ status: 'not_found' });
    const settled = payment.order_status === 'paid' || payment.order_status === 'billed';
    const offer = settled
      ? await openOfferToken(
          db,
          config.masterKey,
          { accountId: payment.account_id, orderId: payment.order_id },
          clock(),
        )
      : undefined;
    return {
      status: payment.status,
      order_status: payment.order_status,
      ...(offer ? { offer } : {}),
      ...receipt(payment),
    };
  });

  app.get('/pay/assets/checkout.js', OPEN, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(await clientBundle()),
  );

  app.get<IdRoute>('/pay/pages/:id/custom_code', OPEN, async (request, reply) =>
    sendCustomCode(reply, await loadCheckoutPage(db, request.params.id)),
  );
  app.get<IdRoute>('/pay/carts/:id/custom_code', OPEN, async (request, reply) =>
    sendCustomCode(reply, await loadCart(db, request.params.id)),
  );
  app.get<IdRoute>('/pay/charges/:id/custom_code', OPEN, async (request, reply) =>
    sendCustomCode(reply, await loadCharge(db, request.params.id, clock())),
  );
}

function closedPage(
  reply: FastifyReply,
  checkout: HostedCheckout & { closed: NonNullable<HostedCheckout['closed']> },
): FastifyReply {
  const document = layout({
    title: checkout.title,
    mainColor: checkout.mainColor,
    index: false,
    header: brandHeader(checkout),
    body: closedBody(checkout),
  });
  return sendPage(reply, 200, document, checkoutPolicy(undefined, []));
}

function notFoundPage(reply: FastifyReply): FastifyReply {
  const body = messageBody(
    'Página não encontrada',
    'Este link de pagamento não existe ou não é mais válido. Confira o endereço ou peça um novo link a quem fez a cobrança.',
  );
  const document = layout({
    title: 'Página não encontrada',
    mainColor: '#1a73e8',
    index: false,
    header: brandHeader({ title: 'Pagamento', menus: [] }),
    body,
  });
  return sendPage(reply, 404, document, checkoutPolicy(undefined, []));
}
