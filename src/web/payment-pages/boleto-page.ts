import { formatDigitableLine } from '../../brazil/boleto.ts';
import { boletoBarcodeSvg, type BoletoPdfInput } from '../../brazil/render/index.ts';
import { formatBrDate, formatTaxId } from '../../brazil/render/boleto-pdf-text.ts';
import { COPY_SCRIPT, copyField } from './copy-field.ts';
import { formatBrl, html, page } from './html.ts';
import type { HostedPayment } from './payment-pages.repo.ts';
import { beneficiaryName, displayStatus } from './payment-pages.view.ts';
import type { RenderedPage } from './pix-page.ts';

export type IssuedBoleto = HostedPayment & {
  boleto_barcode: string;
  boleto_digitable_line: string;
  boleto_due_date: string;
};

const BANK_NAMES: Record<string, string> = { '001': 'Banco do Brasil' };
const UNIDENTIFIED_PAYER = 'Pagador não identificado';

/** The boleto page: digitable line, barcode, amount, due date, beneficiary, payer and the PDF link. */
export function renderBoletoPage(payment: IssuedBoleto, now: Date, nonce: string): RenderedPage {
  const amount = formatBrl(payment.amount_cents);
  const beneficiary = beneficiaryName(payment);
  const barcodeSvg = Buffer.from(boletoBarcodeSvg(payment.boleto_barcode)).toString('base64');
  const body = html`<h1>Boleto bancário</h1>
<dl>
<dt>Valor</dt><dd>${amount}</dd>
<dt>Vencimento</dt><dd>${formatBrDate(payment.boleto_due_date)}</dd>
<dt>Beneficiário</dt><dd>${beneficiary}${payment.company_document ? html` (${formatTaxId(payment.company_document)})` : ''}</dd>
<dt>Pagador</dt><dd>${payment.payer_name ?? UNIDENTIFIED_PAYER}</dd>
</dl>
<p class="status">Situação: ${displayStatus(payment, now)}</p>
<h2>Linha digitável</h2>
${copyField('boleto-line', 'Linha digitável do boleto', formatDigitableLine(payment.boleto_digitable_line), 2)}
<h2>Código de barras</h2>
<img class="barcode" src="data:image/svg+xml;base64,${barcodeSvg}" alt="Código de barras do boleto de ${amount} com vencimento em ${formatBrDate(payment.boleto_due_date)}">
<p><a class="button" href="${payment.uid}.pdf">Baixar o boleto em PDF</a></p>
<p class="muted">Pague no aplicativo ou internet banking do seu banco, em casas lotéricas ou agências, até o vencimento.</p>`;
  return { document: page(`Boleto de ${amount}`, body, { nonce, source: COPY_SCRIPT }), nonce };
}

/** What the printable boleto carries; the amount and due date must match the barcode (boletoPdf checks). */
export function boletoPdfInput(payment: IssuedBoleto): BoletoPdfInput {
  const address = [
    payment.payer_street,
    payment.payer_number,
    payment.payer_city,
    payment.payer_state,
    payment.payer_zipcode,
  ]
    .filter(Boolean)
    .join(', ');
  return {
    bankName: BANK_NAMES[payment.boleto_barcode.slice(0, 3)],
    beneficiary: { name: beneficiaryName(payment), taxId: payment.company_document ?? undefined },
    payer: {
      name: payment.payer_name ?? UNIDENTIFIED_PAYER,
      taxId: payment.payer_document ?? undefined,
      address: address || undefined,
    },
    amountCents: payment.amount_cents,
    dueDate: payment.boleto_due_date,
    digitableLine: payment.boleto_digitable_line,
    barcode: payment.boleto_barcode,
  };
}
