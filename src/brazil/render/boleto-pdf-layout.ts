/** The drawing pieces of the printed boleto: its header, labelled boxes, cut line and value formats. */

import { bankCodeCheckDigit, formatDigitableLine } from '../boleto.ts';
import type { BoletoParty, BoletoPdfInput } from './boleto-pdf-input.ts';
import { formatBrDate, formatBrl, formatTaxId } from './boleto-pdf-text.ts';

export type Doc = PDFKit.PDFDocument;

export const LEFT = 36;
export const WIDTH = 523;
export const ROW = 26;
export const MM = 72 / 25.4;

export function drawCutLine(doc: Doc, y: number): void {
  doc
    .save()
    .moveTo(LEFT, y)
    .lineTo(LEFT + WIDTH, y)
    .lineWidth(0.5)
    .dash(3, { space: 3 })
    .stroke()
    .restore();
  doc
    .font('Helvetica')
    .fontSize(6)
    .text('Corte na linha pontilhada', LEFT, y - 9, { width: WIDTH, align: 'right' });
}

/** Bank name | bank code with its check digit | digitable line, the first line of each part. */
export function drawHeader(doc: Doc, input: BoletoPdfInput, top: number): void {
  const bankCode = input.barcode.slice(0, 3);
  const bankName = input.bankName ?? `Banco ${bankCode}`;
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .text(bankName, LEFT, top + 9, { width: 150, height: 14, ellipsis: true, lineBreak: false });
  doc
    .moveTo(LEFT + 152, top + 4)
    .lineTo(LEFT + 152, top + ROW)
    .moveTo(LEFT + 212, top + 4)
    .lineTo(LEFT + 212, top + ROW)
    .lineWidth(1)
    .stroke();
  doc
    .fontSize(14)
    .text(`${bankCode}-${bankCodeCheckDigit(bankCode)}`, LEFT + 152, top + 8, { width: 60, align: 'center' });
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor('#444444')
    .text('Linha digitável', LEFT + 220, top, { width: WIDTH - 220, align: 'right' });
  doc
    .font('Helvetica-Bold')
    .fontSize(10.5)
    .fillColor('black')
    .text(formatDigitableLine(input.digitableLine), LEFT + 220, top + 9.5, { width: WIDTH - 220, align: 'right' });
  doc
    .moveTo(LEFT, top + ROW)
    .lineTo(LEFT + WIDTH, top + ROW)
    .lineWidth(1)
    .stroke();
}

/** A labelled box: small grey label on top, value below, cut with an ellipsis when it does not fit. */
export function field(
  doc: Doc,
  x: number,
  y: number,
  width: number,
  height: number,
  label: string,
  value: string,
  style: { bold?: boolean; align?: 'left' | 'right' } = {},
): void {
  doc.rect(x, y, width, height).lineWidth(0.5).stroke();
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor('#444444')
    .text(label, x + 3, y + 2.5, { width: width - 6, lineBreak: false });
  if (value === '') return;
  doc
    .font(style.bold ? 'Helvetica-Bold' : 'Helvetica')
    .fontSize(9)
    .fillColor('black');
  doc.text(value, x + 3, y + 11, {
    width: width - 6,
    height: height - 12,
    align: style.align ?? 'left',
    ellipsis: true,
  });
}

export const documentValue = (input: BoletoPdfInput) => input.amountCents - (input.surchargeCents ?? 0);
export const surchargeOf = (input: BoletoPdfInput) => (input.surchargeCents ? formatBrl(input.surchargeCents) : '');
export const dateOf = (isoDate: string | undefined) => (isoDate ? formatBrDate(isoDate) : '');
export const partyLine = (party: BoletoParty) => [party.name, taxIdOf(party)].filter(Boolean).join(' — ');

function taxIdOf(party: BoletoParty): string {
  return party.taxId ? formatTaxId(party.taxId) : '';
}
