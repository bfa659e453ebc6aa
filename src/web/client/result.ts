import { getJson, postJson } from './api.ts';
import { announce, byId, element } from './dom.ts';
import { showPixView } from './pix-view.ts';
import { show, showConfirmed, showLapsed, type PaymentView } from './result-view.ts';
import { receiptView, refreshReceipt, withStatus, type ReceiptFacts } from './receipt.ts';
import { BOLETO_POLL, PIX_POLL, watchPayment, type PollSchedule } from './status-poll.ts';

export type Settings = { redirectUrl: string; upsellName: string };

/** After the receipt was read: a visible link at once, and the page follows it a few seconds later. */
const REDIRECT_AFTER_MS = 4000;
const redirectSoon = (url: string) => {
  if (!url) return;
  const section = byId('result')!;
  const next = element('p', { id: 'redirect-note', class: 'muted' }, 'Você será redirecionado em instantes. ');
  next.append(element('a', { href: url }, 'Continuar agora'));
  section.append(next);
  announce('Redirecionando…');
  setTimeout(() => location.assign(url), REDIRECT_AFTER_MS);
};

type UpsellMethod = 'card' | 'pix' | 'boleto';
const UPSELL_HOW: Record<UpsellMethod, string> = {
  card: 'no mesmo cartão',
  pix: 'com um novo Pix',
  boleto: 'com um novo boleto',
};

/**
 * The one-click upsell offer (POST /upsell). A card original is charged again on the same card; a pix or
 * boleto original gets a new pix or boleto for the offer, shown in place.
 */
function upsellBox(settings: Settings, offer: string, method: UpsellMethod): HTMLElement {
  const accept = element('button', { type: 'button', id: 'accept-upsell' }, `Sim, quero ${settings.upsellName}`);
  const decline = element('button', { type: 'button', id: 'decline-upsell', class: 'secondary' }, 'Não, obrigado');
  const outcome = element('p', { id: 'upsell-status', role: 'status', 'aria-live': 'polite' });
  const box = element('div', { id: 'upsell', role: 'region', 'aria-labelledby': 'upsell-heading' });
  box.append(
    element('h3', { id: 'upsell-heading' }, 'Oferta especial para você'),
    element('p', {}, `Adicione ${settings.upsellName} ao seu pedido com um clique, ${UPSELL_HOW[method]}.`),
    accept,
    ' ',
    decline,
    outcome,
  );
  accept.addEventListener('click', async () => {
    accept.disabled = true;
    const answer = await postJson('/api/v1/upsell', { offer });
    if (answer.status !== 200) {
      outcome.textContent = 'Esta oferta não está disponível no momento. Seu pedido original está confirmado.';
      accept.disabled = false;
      return;
    }
    // The offer's own pix or boleto is the next thing to pay; it carries no further offer.
    const facts: ReceiptFacts = { method: answer.body?.pix_qr_code_url ? 'pix' : 'bank_slip' };
    if (answer.body?.pix_qr_code_url) return showPix({ ...settings, upsellName: '' }, answer.body, facts);
    if (answer.body?.bank_slip_url)
      return showBoleto({ ...settings, upsellName: '' }, answer.body.bank_slip_url, facts);
    outcome.textContent =
      answer.body?.order_status === 'refused'
        ? 'O cartão recusou a oferta; nada foi cobrado.'
        : 'Oferta adicionada ao seu pedido!';
    redirectSoon(settings.redirectUrl);
  });
  decline.addEventListener('click', () => {
    box.hidden = true;
    if (settings.redirectUrl) redirectSoon(settings.redirectUrl);
    else byId('result')!.focus();
  });
  return box;
}

/** An approved card: one success view (amount, installments, order, receipt), the offer if any, then the redirect. */
export function showPaid(settings: Settings, offer: string | undefined, facts: ReceiptFacts, statusUid?: string): void {
  const text = element('p', { id: 'paid-status', class: 'status success' }, 'Tudo certo: seu pedido está confirmado.');
  const withOffer = Boolean(offer && settings.upsellName);
  show('Pagamento aprovado', text, receiptView(facts), ...(withOffer ? [upsellBox(settings, offer!, 'card')] : []));
  // The result takes focus and is named by its heading: a live announcement would say it a second time.
  announce('');
  if (statusUid)
    void getJson(`/pay/status/${statusUid}`).then((answer) => {
      if (answer.status === 200) refreshReceipt(withStatus(facts, answer.body));
    });
  if (!withOffer) redirectSoon(settings.redirectUrl);
}

/**
 * The gateway did not answer in time (504): the card may have been charged and the service reconciles it. The
 * form goes away so the buyer cannot pay twice; a charge links its confirmation page, which shows the outcome.
 */
export function showPending(message: string, statusUrl: string | undefined): void {
  const text = element('p', { id: 'pending-status', class: 'status' }, message);
  const later = statusUrl
    ? element('a', { href: statusUrl, id: 'pending-link' }, 'Ver a situação do pagamento')
    : element(
        'p',
        { class: 'muted' },
        'Se a confirmação não chegar em alguns minutos, confira a fatura do cartão antes de tentar de novo.',
      );
  show('Confirmando o pagamento', text, later);
  announce('Pagamento em confirmação. Não pague de novo.');
}

export const uidOfUrl = (url: string) => url.split('/').pop() ?? '';

/**
 * Polls the payment a pix or boleto view shows (`/pay/status/{uid}`, the last segment of its page's URL).
 * Once paid, on a page with an upsell product the poll goes on until the status carries the offer, shown
 * under the confirmation as after a card (accepting it gives a new payment of the same method); without
 * an offer in time, or without an upsell product, the page redirects as after a card.
 */
function followPayment(
  settings: Settings,
  url: string,
  schedule: PollSchedule,
  method: 'pix' | 'boleto',
  view: PaymentView,
): void {
  watchPayment(uidOfUrl(url), schedule, Boolean(settings.upsellName), {
    paid: view.paid,
    offer: (offer) => byId('result')!.append(upsellBox(settings, offer, method)),
    settled: () => redirectSoon(settings.redirectUrl),
    lapsed: view.lapsed,
    gaveUp: view.gaveUp,
  });
}

/** The Pix view (QR, copy-and-paste code, amount, countdown, live status), then its receipt once paid. */
export function showPix(
  settings: Settings,
  result: { pix_qr_code?: string; pix_qr_code_url?: string; pix_expires_at?: string },
  facts: ReceiptFacts,
): void {
  const url = result.pix_qr_code_url ?? '';
  const view = showPixView(result, facts);
  followPayment(settings, url, PIX_POLL, 'pix', view);
}

/**
 * The boleto link, polling the payment with backoff for 30 minutes (BOLETO_POLL): a boleto paid meanwhile
 * turns the view to the confirmation and, on a page with an upsell product, shows the offer; see followPayment.
 */
export function showBoleto(settings: Settings, url: string, facts: ReceiptFacts): void {
  const link = element(
    'a',
    { href: url, id: 'boleto-link', class: 'button', target: '_blank', rel: 'noopener' },
    'Abrir o boleto para imprimir',
  );
  const status = element('p', { id: 'boleto-status', class: 'status' }, 'Aguardando pagamento…');
  const how = element(
    'p',
    {},
    'Pague o boleto em qualquer banco ou lotérica até o vencimento. A confirmação leva até 3 dias úteis.',
  );
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  show('Boleto gerado', how, link, status);
  announce('');
  void getJson(`/pay/status/${uidOfUrl(url)}`).then((answer) => {
    if (answer.status === 200) facts = withStatus(facts, answer.body);
  });
  followPayment(settings, url, BOLETO_POLL, 'boleto', {
    paid: () => {
      how.hidden = true;
      link.hidden = true;
      showConfirmed(status, 'Pago! Recebemos o pagamento do seu boleto.', { ...facts, method: 'bank_slip' });
    },
    lapsed: () => {
      how.hidden = true;
      link.hidden = true;
      showLapsed(status, 'Este boleto venceu sem pagamento. Recarregue a página para gerar outro.');
    },
    gaveUp: () => {
      status.textContent =
        'Assim que o banco confirmar o pagamento (em até 3 dias úteis), o pedido será liberado. Você já pode fechar esta página.';
    },
  });
}
