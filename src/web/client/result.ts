import { postJson } from './api.ts';
import { announce, byId, element } from './dom.ts';
import { BOLETO_POLL, PIX_POLL, watchPayment, type PollSchedule } from './status-poll.ts';

export type Settings = { redirectUrl: string; upsellName: string };

function show(heading: string, ...children: Node[]): HTMLElement {
  byId('checkout-form')!.hidden = true;
  const section = byId('result')!;
  section.replaceChildren(element('h2', { id: 'result-heading' }, heading), ...children);
  section.hidden = false;
  section.focus();
  return section;
}

const redirectSoon = (url: string) => {
  if (!url) return;
  announce('Redirecionando…');
  setTimeout(() => location.assign(url), 1500);
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
    if (answer.body?.pix_qr_code_url) return showPix({ ...settings, upsellName: '' }, answer.body);
    if (answer.body?.bank_slip_url) return showBoleto({ ...settings, upsellName: '' }, answer.body.bank_slip_url);
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

/** An approved payment; with an offer, the one-click upsell (POST /upsell) before any redirect. */
export function showPaid(settings: Settings, offer: string | undefined): void {
  const text = element('p', { class: 'status success' }, 'Pagamento aprovado! Você receberá a confirmação por e-mail.');
  if (!offer || !settings.upsellName) {
    show('Pagamento aprovado', text);
    announce('Pagamento aprovado.', 'success');
    redirectSoon(settings.redirectUrl);
    return;
  }
  show('Pagamento aprovado', text, upsellBox(settings, offer, 'card'));
  announce('Pagamento aprovado.', 'success');
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

function countdown(target: HTMLElement, expiresAt: string, expired: () => void): () => void {
  const end = Date.parse(expiresAt);
  const tick = () => {
    const left = Math.max(0, Math.floor((end - Date.now()) / 1000));
    target.textContent = `Expira em ${String(Math.floor(left / 60)).padStart(2, '0')}:${String(left % 60).padStart(2, '0')}`;
    if (left === 0) expired();
  };
  tick();
  const timer = setInterval(tick, 1000);
  return () => clearInterval(timer);
}

/** How the view of a pix or boleto changes as its poll learns what became of the payment. */
type PaymentView = { paid(): void; lapsed(): void; gaveUp(): void };

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

/** Turns a pix or boleto view into the confirmation: its heading, its status line, the announcement. */
function showConfirmed(status: HTMLElement, text: string): void {
  byId('result-heading')!.textContent = 'Pagamento confirmado';
  status.textContent = text;
  status.classList.add('success');
  announce('Pagamento confirmado.', 'success');
}

/** The status line of a lapsed pix or boleto says it, as an alert, instead of a second copy in the live status. */
function showLapsed(status: HTMLElement, text: string): void {
  announce('');
  status.setAttribute('role', 'alert');
  status.textContent = text;
}

/** The Pix QR inline with a countdown, polling the payment every 2 s until it is paid (or lapses); see followPayment. */
export function showPix(
  settings: Settings,
  result: { pix_qr_code?: string; pix_qr_code_url?: string; pix_expires_at?: string },
): void {
  const status = element('p', { id: 'pix-status', class: 'status' }, 'Aguardando pagamento…');
  const timer = element('p', { id: 'pix-countdown', 'aria-live': 'off' });
  const qr = element('img', {
    class: 'qr',
    id: 'pix-qr',
    alt: 'QR Code Pix do pagamento',
    width: '256',
    height: '256',
    src: `data:image/png;base64,${result.pix_qr_code ?? ''}`,
  });
  const link = element(
    'a',
    { href: result.pix_qr_code_url ?? '#', target: '_blank', rel: 'noopener' },
    'Abrir o Pix copia e cola',
  );
  const how = element('p', {}, 'Abra o aplicativo do seu banco, escolha Pix e escaneie o QR Code.');
  show('Pague com Pix', how, qr, timer, element('p', {}, ''), link, status);
  announce('Pix gerado. Aguardando pagamento.');
  const stopCountdown = countdown(timer, result.pix_expires_at ?? new Date().toISOString(), () => void 0);
  followPayment(settings, result.pix_qr_code_url ?? '', PIX_POLL, 'pix', {
    paid: () => {
      stopCountdown();
      for (const part of [how, qr, timer, link]) part.hidden = true;
      showConfirmed(status, 'Pago! Recebemos o seu Pix.');
    },
    lapsed: () => {
      stopCountdown();
      for (const part of [how, qr, timer, link]) part.hidden = true;
      showLapsed(status, 'Este Pix expirou sem pagamento. Recarregue a página para gerar outro.');
    },
    gaveUp: () => stopCountdown(),
  });
}

/**
 * The boleto link, polling the payment with backoff for 30 minutes (BOLETO_POLL): a boleto paid meanwhile
 * turns the view to the confirmation and, on a page with an upsell product, shows the offer; see followPayment.
 */
export function showBoleto(settings: Settings, url: string): void {
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
  show('Boleto gerado', how, link, status);
  announce('Boleto gerado.');
  followPayment(settings, url, BOLETO_POLL, 'boleto', {
    paid: () => {
      how.hidden = true;
      link.hidden = true;
      showConfirmed(status, 'Pago! Recebemos o pagamento do seu boleto.');
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
