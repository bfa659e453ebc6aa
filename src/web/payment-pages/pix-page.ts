import { pixQrPngBase64 } from '../../brazil/render/index.ts';
import { COPY_SCRIPT, copyField } from './copy-field.ts';
import { formatBrl, html, page } from './html.ts';
import type { HostedPayment } from './payment-pages.repo.ts';
import { displayStatus, formatDateTimeIn } from './payment-pages.view.ts';

export type RenderedPage = { document: string; nonce?: string };

/**
 * The Pix page: amount, status and, while it can still be paid, the QR code, the copy-and-paste code
 * and when it expires (on the company's clock). `qrFailed` is told when the stored code cannot be drawn.
 */
export async function renderPixPage(
  payment: HostedPayment & { pix_code: string },
  now: Date,
  nonce: string,
  qrFailed: (error: unknown) => void,
): Promise<RenderedPage> {
  const status = displayStatus(payment, now);
  const amount = formatBrl(payment.amount_cents);
  const expiry = payment.pix_expires_at ? formatDateTimeIn(payment.pix_expires_at, payment.time_zone) : undefined;
  const header = html`<h1>Pagamento via Pix</h1>
<p>Para <strong>${payment.company_name}</strong></p>
<dl>
<dt>Valor</dt><dd>${amount}</dd>
${expiry ? html`<dt>Válido até</dt><dd>${expiry}</dd>` : ''}
</dl>
<p class="status">Situação: ${status}</p>`;
  if (status !== 'Aguardando pagamento') return { document: page(`Pix: ${status}`, header) };

  const qr = await pixQrPngBase64(payment.pix_code).catch((error: unknown) => {
    qrFailed(error);
    return undefined;
  });
  const body = html`${header}
<h2>Escaneie o QR Code</h2>
${qr ? html`<img class="qr" src="data:image/png;base64,${qr}" width="256" height="256" alt="QR Code Pix para pagar ${amount} a ${payment.company_name}">` : html`<p>Use o código abaixo no aplicativo do seu banco.</p>`}
<h2>Ou use o Pix copia e cola</h2>
${copyField('pix-code', 'Código Pix copia e cola', payment.pix_code, 4)}
<p class="muted">Abra o aplicativo do seu banco, escolha pagar com Pix e escaneie o QR Code ou cole o código.</p>`;
  return { document: page(`Pix de ${amount}`, body, { nonce, source: COPY_SCRIPT }), nonce };
}
