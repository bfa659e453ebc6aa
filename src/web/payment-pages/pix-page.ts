import { pixQrForScreen } from '../../brazil/render/index.ts';
import { orderNumber } from '../checkout/payment-receipt.ts';
import { COPY_SCRIPT, copyField } from './copy-field.ts';
import { formatBrl, html, page, type SafeHtml } from './html.ts';
import type { HostedPayment, OrderLine } from './payment-pages.repo.ts';
import { displayStatus, formatDateTimeIn } from './payment-pages.view.ts';

export type RenderedPage = { document: string; nonce?: string };

/**
 * While the Pix waits: a countdown to its expiry and a poll of `/pay/status/{uid}` every 3 s; a paid or lapsed
 * Pix (or the countdown reaching zero) reloads the page, which the server then renders as it now stands.
 */
const PIX_WAIT_SCRIPT = `
const countdown = document.getElementById('pix-countdown');
const status = document.getElementById('pix-status');
const end = Date.parse(countdown.dataset.expiresAt);
const tick = () => {
  const left = Math.max(0, Math.floor((end - Date.now()) / 1000));
  countdown.textContent = 'Expira em ' + String(Math.floor(left / 60)).padStart(2, '0') + ':' + String(left % 60).padStart(2, '0');
  if (left === 0) { clearInterval(timer); location.reload(); }
};
const timer = setInterval(tick, 1000);
tick();
const poll = async () => {
  try {
    const answer = await fetch('/pay/status/' + status.dataset.uid, { headers: { accept: 'application/json' } });
    const body = answer.ok ? await answer.json() : undefined;
    if (body && body.status !== 'pending' && body.status !== 'waiting_payment') return location.reload();
  } catch {}
  setTimeout(poll, 3000);
};
setTimeout(poll, 3000);
`;

function orderSummary(lines: OrderLine[]): SafeHtml {
  if (!lines.length) return html``;
  return html`<h2>Resumo do pedido</h2>
<ul class="summary-items">${lines.map((line) => html`<li>${line.quantity} × ${line.product_name}: ${formatBrl(line.total_cents)}</li>`)}</ul>`;
}

/**
 * The Pix page: amount, order number and status; while it can still be paid, the QR code, the copy-and-paste
 * code with its "Copiar código Pix" button, the countdown and the live status; once paid, the confirmation
 * with the order summary. `qrFailed` is told when the stored code cannot be drawn.
 */
export async function renderPixPage(
  payment: HostedPayment & { pix_code: string },
  lines: OrderLine[],
  now: Date,
  nonce: string,
  qrFailed: (error: unknown) => void,
): Promise<RenderedPage> {
  const status = displayStatus(payment, now);
  const amount = formatBrl(payment.amount_cents);
  const expiry = payment.pix_expires_at ? formatDateTimeIn(payment.pix_expires_at, payment.time_zone) : undefined;
  const facts = html`<dl>
<dt>${status === 'Pago' ? 'Valor pago' : 'Valor'}</dt><dd id="pix-amount">${amount}</dd>
<dt>Pedido</dt><dd>nº ${orderNumber(payment.order_uid)}</dd>
${expiry && status === 'Aguardando pagamento' ? html`<dt>Válido até</dt><dd>${expiry}</dd>` : ''}
</dl>`;
  if (status === 'Pago') {
    const body = html`<h1>Pagamento confirmado</h1>
<p class="status success" role="status">Situação: Pago</p>
<p>Recebemos o seu Pix para <strong>${payment.company_name}</strong>. Obrigado!</p>
${facts}
${orderSummary(lines)}
<p>O comprovante será enviado para o e-mail informado na compra.</p>`;
    return { document: page('Pix: pagamento confirmado', body) };
  }
  const header = html`<h1>Pagamento via Pix</h1>
<p>Para <strong>${payment.company_name}</strong></p>
${facts}`;
  if (status !== 'Aguardando pagamento')
    return { document: page(`Pix: ${status}`, html`${header}<p class="status" role="status">Situação: ${status}</p>`) };

  const qr = await pixQrForScreen(payment.pix_code).catch((error: unknown) => {
    qrFailed(error);
    return undefined;
  });
  const body = html`${header}
<p class="muted">Abra o aplicativo do seu banco, escolha pagar com Pix e escaneie o QR Code ou cole o código.</p>
${qr ? html`<img class="pixel-exact qr-exact" id="pix-qr" src="data:image/png;base64,${qr.base64}" width="${qr.size}" height="${qr.size}" alt="QR Code Pix para pagar ${amount} a ${payment.company_name}">` : html`<p>Use o código abaixo no aplicativo do seu banco.</p>`}
${copyField('pix-code', 'Código Pix copia e cola', payment.pix_code, 4, { text: 'Copiar código Pix', copied: 'Código Pix copiado. Cole no aplicativo do seu banco, na opção Pix copia e cola.' })}
<p id="pix-countdown" data-expires-at="${payment.pix_expires_at?.toISOString() ?? now.toISOString()}" aria-live="off"></p>
<p id="pix-status" class="status" role="status" aria-live="polite" data-uid="${payment.uid}">Aguardando pagamento</p>`;
  return {
    document: page(`Pix de ${amount}`, body, { nonce, source: COPY_SCRIPT + PIX_WAIT_SCRIPT }),
    nonce,
  };
}
