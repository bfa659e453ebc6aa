import { formatDigitableLine } from '../../brazil/boleto.ts';
import { boletoBarcodeScreenSvg, pixQrForScreen, type BoletoPdfInput } from '../../brazil/render/index.ts';
import { formatBrDate, formatTaxId } from '../../brazil/render/boleto-pdf-text.ts';
import { COPY_SCRIPT, copyField } from './copy-field.ts';
import { formatBrl, html, page, type SafeHtml } from './html.ts';
import { boletoSheet, type IssuedBoleto } from './boleto-sheet.ts';
import { displayStatus } from './payment-pages.view.ts';
import type { RenderedPage } from './pix-page.ts';

const party = (name: string, taxId: string | undefined) => (taxId ? `${name} — ${formatTaxId(taxId)}` : name);

/** The fields of the ficha de compensação, in its order, as a definition list. */
function slipFields(sheet: BoletoPdfInput): SafeHtml {
  const surcharge = sheet.surchargeCents ?? 0;
  const rows: Array<[string, string]> = [
    ['Vencimento', formatBrDate(sheet.dueDate)],
    ['Beneficiário', party(sheet.beneficiary.name, sheet.beneficiary.taxId)],
    ['Agência/Código do beneficiário', sheet.beneficiaryCode ?? '—'],
    ['Pagador', party(sheet.payer.name, sheet.payer.taxId)],
    ['Nosso número', sheet.ourNumber ?? '—'],
    ['Nº do documento', sheet.documentNumber ?? '—'],
    ['Data do documento', sheet.issueDate ? formatBrDate(sheet.issueDate) : '—'],
    ['Data de processamento', sheet.processingDate ? formatBrDate(sheet.processingDate) : '—'],
    ['Carteira', sheet.carteira ?? '—'],
    ['Espécie', 'R$'],
    ['Espécie doc.', sheet.documentKind ?? '—'],
    ['Aceite', sheet.acceptance ?? '—'],
    ['(=) Valor do documento', formatBrl(sheet.amountCents - surcharge)],
    ...(surcharge > 0 ? ([['(+) Juros/Multa', formatBrl(surcharge)]] as Array<[string, string]>) : []),
    ['(=) Valor cobrado', formatBrl(sheet.amountCents)],
  ];
  return html`<dl class="slip">${rows.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

/**
 * The boleto page: amount and status, the digitable line to copy, the barcode drawn for a 1x screen, the Pix
 * QR code of the same charge when the gateway issued one (boleto híbrido), every field of the slip with its
 * instructions, and the PDF link.
 */
export async function renderBoletoPage(payment: IssuedBoleto, now: Date, nonce: string): Promise<RenderedPage> {
  const sheet = boletoSheet(payment);
  const amount = formatBrl(payment.amount_cents);
  const due = formatBrDate(payment.boleto_due_date);
  const barcode = boletoBarcodeScreenSvg(payment.boleto_barcode);
  const barcodeSrc = `data:image/svg+xml;base64,${Buffer.from(barcode.svg).toString('base64')}`;
  const pix = payment.pix_code ? await pixQrForScreen(payment.pix_code).catch(() => undefined) : undefined;
  const body = html`<h1>Boleto bancário</h1>
<dl>
<dt>Valor</dt><dd>${amount}</dd>
<dt>Vencimento</dt><dd>${due}</dd>
</dl>
<p class="status">Situação: ${displayStatus(payment, now)}</p>
<h2>Linha digitável</h2>
${copyField('boleto-line', 'Linha digitável do boleto', formatDigitableLine(payment.boleto_digitable_line), 2)}
<h2>Código de barras</h2>
<div class="barcode-box"><img class="pixel-exact" id="boleto-barcode" src="${barcodeSrc}" width="${barcode.width}" height="${barcode.height}" alt="Código de barras do boleto de ${amount} com vencimento em ${due}"></div>
${
  pix
    ? html`<h2>Pague com Pix</h2>
<p class="muted">Este boleto também pode ser pago com o Pix: escaneie o QR Code no aplicativo do seu banco. O valor é o mesmo.</p>
<img class="pixel-exact qr-exact" id="boleto-pix-qr" src="data:image/png;base64,${pix.base64}" width="${pix.size}" height="${pix.size}" alt="QR Code Pix deste boleto, para pagar ${amount}">
${copyField('boleto-pix', 'Pix copia e cola deste boleto', payment.pix_code ?? '', 4)}`
    : ''
}
<h2>Dados do boleto</h2>
${slipFields(sheet)}
<h2>Instruções</h2>
<ul class="instructions">${(sheet.instructions ?? []).map((line) => html`<li>${line}</li>`)}</ul>
<p><a class="button" href="${payment.uid}.pdf">Baixar o boleto em PDF</a></p>
<p class="muted">Pague no aplicativo ou internet banking do seu banco, em casas lotéricas ou agências, até o vencimento.</p>`;
  return { document: page(`Boleto de ${amount}`, body, { nonce, source: COPY_SCRIPT }), nonce };
}
