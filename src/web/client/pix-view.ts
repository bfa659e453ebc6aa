import { getJson } from './api.ts';
import { pixCopyField } from './copy.ts';
import { announce, element } from './dom.ts';
import { brl } from './format.ts';
import { withStatus, type ReceiptFacts } from './receipt.ts';
import { countdown, show, showConfirmed, showLapsed, type PaymentView } from './result-view.ts';

const uidOf = (url: string) => url.split('/').pop() ?? '';

/**
 * The Pix to pay: the amount, the QR code, the copy-and-paste code in a read-only field with its copy button
 * (the code comes from `/pay/status/{uid}`, which the page may read with the payment's UID), the countdown to
 * `pix_expires_at` and one live status line. Returns how the view turns to the receipt or the lapse.
 */
export function showPixView(
  result: { pix_qr_code?: string; pix_qr_code_url?: string; pix_expires_at?: string },
  initial: ReceiptFacts,
): PaymentView {
  let facts = initial;
  const amount = element('p', { id: 'pix-amount', class: 'amount' });
  const setAmount = () => {
    amount.textContent = facts.amountCents !== undefined ? `Valor: ${brl(facts.amountCents)}` : '';
  };
  setAmount();
  const how = element(
    'p',
    {},
    'Abra o aplicativo do seu banco, escolha Pix e escaneie o QR Code ou use o código abaixo.',
  );
  const qr = element('img', {
    class: 'qr',
    id: 'pix-qr',
    alt: 'QR Code Pix do pagamento',
    src: `data:image/png;base64,${result.pix_qr_code ?? ''}`,
  });
  qr.addEventListener('load', () => fitPixelExact(qr as HTMLImageElement));
  const code = element('div', { id: 'pix-code-box' });
  const timer = element('p', { id: 'pix-countdown', 'aria-live': 'off' });
  const status = element(
    'p',
    { id: 'pix-status', class: 'status', role: 'status', 'aria-live': 'polite' },
    'Aguardando pagamento…',
  );
  const waiting = [how, qr, code, timer];
  show('Pague com Pix', amount, how, qr, code, timer, status);
  announce('');
  void getJson(`/pay/status/${uidOf(result.pix_qr_code_url ?? '')}`).then((answer) => {
    if (answer.status !== 200) return;
    facts = withStatus(facts, answer.body);
    setAmount();
    if (typeof answer.body.pix_code === 'string') code.replaceChildren(pixCopyField(answer.body.pix_code));
  });
  const stopCountdown = countdown(timer, result.pix_expires_at ?? new Date().toISOString(), () => void 0);
  return {
    paid: () => {
      stopCountdown();
      for (const part of waiting) part.hidden = true;
      showConfirmed(status, 'Pago! Recebemos o seu Pix.', facts);
    },
    lapsed: () => {
      stopCountdown();
      for (const part of [...waiting, amount]) part.hidden = true;
      showLapsed(status, 'Este Pix expirou sem pagamento. Recarregue a página para gerar outro.');
    },
    gaveUp: () => stopCountdown(),
  };
}

/** The largest size the QR code takes on the page, in CSS pixels. */
const QR_MAX_PIXELS = 288;

/**
 * The API's QR PNG draws each module on 8 pixels: shown at its size divided by a power of two it keeps a whole
 * number of pixels a module (no resampling, so a camera or a screenshot reads it), as large as fits.
 */
function fitPixelExact(image: HTMLImageElement): void {
  let size = image.naturalWidth;
  while (size > QR_MAX_PIXELS && size % 2 === 0) size /= 2;
  image.width = size;
  image.height = size;
}
