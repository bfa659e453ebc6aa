import { getJson, postJson } from './api.ts';
import { announce, byId, element } from './dom.ts';

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

type UpsellMethod = 'card' | 'pix';

/**
 * The one-click upsell offer (POST /upsell). A card original is charged again on the same card; a pix
 * original gets a new pix for the offer, shown in place. `answered` runs once the buyer has said no or the
 * offer was added without a new payment to show.
 */
function upsellBox(settings: Settings, offer: string, method: UpsellMethod): HTMLElement {
  const accept = element('button', { type: 'button', id: 'accept-upsell' }, `Sim, quero ${settings.upsellName}`);
  const decline = element('button', { type: 'button', id: 'decline-upsell', class: 'secondary' }, 'Não, obrigado');
  const outcome = element('p', { id: 'upsell-status', role: 'status', 'aria-live': 'polite' });
  const box = element('div', { id: 'upsell', role: 'region', 'aria-labelledby': 'upsell-heading' });
  const how = method === 'card' ? 'no mesmo cartão' : 'com um novo Pix';
  box.append(element('h3', { id: 'upsell-heading' }, 'Oferta especial para você'), element('p', {}, `Adicione ${settings.upsellName} ao seu pedido com um clique, ${how}.`), accept, ' ', decline, outcome);
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
    if (answer.body?.bank_slip_url) return showBoleto(answer.body.bank_slip_url);
    outcome.textContent = answer.body?.order_status === 'refused' ? 'O cartão recusou a oferta; nada foi cobrado.' : 'Oferta adicionada ao seu pedido!';
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

/** How many polls after a pix is paid wait for its upsell offer (the service releases it moments after the payment). */
const OFFER_POLLS = 15;

/**
 * The Pix QR inline with a countdown, polling the payment until it is paid (or lapses). On a page with an
 * upsell, the poll goes on after the payment until `/pay/status` reports the offer, which is then shown as
 * for a card; without one in time, the page redirects as it would have.
 */
export function showPix(settings: Settings, result: { pix_qr_code?: string; pix_qr_code_url?: string; pix_expires_at?: string }, pollMs = 2000): void {
  const status = element('p', { id: 'pix-status', class: 'status' }, 'Aguardando pagamento…');
  const timer = element('p', { id: 'pix-countdown', 'aria-live': 'off' });
  const qr = element('img', { class: 'qr', id: 'pix-qr', alt: 'QR Code Pix do pagamento', width: '256', height: '256', src: `data:image/png;base64,${result.pix_qr_code ?? ''}` });
  const link = element('a', { href: result.pix_qr_code_url ?? '#', target: '_blank', rel: 'noopener' }, 'Abrir o Pix copia e cola');
  show('Pague com Pix', element('p', {}, 'Abra o aplicativo do seu banco, escolha Pix e escaneie o QR Code.'), qr, timer, element('p', {}, ''), link, status);
  announce('Pix gerado. Aguardando pagamento.');
  const uid = uidOfUrl(result.pix_qr_code_url ?? '');
  let stopped = false;
  let paid = false;
  let offerPolls = 0;
  const stopCountdown = countdown(timer, result.pix_expires_at ?? new Date().toISOString(), () => void 0);
  const poll = async () => {
    if (stopped) return;
    const answer = await getJson(`/pay/status/${uid}`);
    const state = answer.body?.status;
    if (state === 'paid') {
      if (!paid) {
        paid = true;
        stopCountdown();
        qr.hidden = true;
        timer.hidden = true;
        link.hidden = true;
        byId('result-heading')!.textContent = 'Pagamento confirmado';
        status.textContent = 'Pago! Recebemos o seu Pix.';
        status.classList.add('success');
        announce('Pagamento confirmado.', 'success');
      }
      const offer = answer.body?.offer;
      if (settings.upsellName && typeof offer === 'string') {
        stopped = true;
        byId('result')!.append(upsellBox(settings, offer, 'pix'));
        return;
      }
      if (!settings.upsellName || ++offerPolls > OFFER_POLLS) {
        stopped = true;
        redirectSoon(settings.redirectUrl);
        return;
      }
      setTimeout(poll, pollMs);
      return;
    }
    if (state === 'cancelled' || state === 'failed') {
      stopped = true;
      stopCountdown();
      qr.hidden = true;
      status.textContent = 'Este Pix expirou sem pagamento. Recarregue a página para gerar outro.';
      announce(status.textContent);
      return;
    }
    setTimeout(poll, pollMs);
  };
  setTimeout(poll, pollMs);
}

export function showBoleto(url: string): void {
  const link = element('a', { href: url, id: 'boleto-link', class: 'button', target: '_blank', rel: 'noopener' }, 'Abrir o boleto para imprimir');
  show('Boleto gerado', element('p', {}, 'Pague o boleto em qualquer banco ou lotérica até o vencimento. A confirmação leva até 3 dias úteis.'), link);
  announce('Boleto gerado.');
}
