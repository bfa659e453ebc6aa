/** A one-page printable boleto (A4): "Recibo do Pagador" on top, "Ficha de Compensação" with the barcode below. */

import PDFDocument from 'pdfkit';
import { boletoDueFactor, digitableLineToBarcode, readBoletoBarcode } from '../boleto.ts';
import { boletoBarcodePng } from './boleto-barcode.ts';
import type { BoletoPdfInput } from './boleto-pdf-input.ts';
import {
  dateOf,
  documentValue,
  drawCutLine,
  drawHeader,
  field,
  LEFT,
  MM,
  partyLine,
  ROW,
  surchargeOf,
  WIDTH,
  type Doc,
} from './boleto-pdf-layout.ts';
import { pixQrPng } from './pix-qr.ts';
import { formatBrDate, formatBrl } from './boleto-pdf-text.ts';

export type { BoletoPdfInput } from './boleto-pdf-input.ts';

export interface BoletoPdfOptions {
  /** false leaves the content streams readable (tests search them for the digitable line). */
  compress?: boolean;
}

const RIGHT_COLUMN = 150;
// FEBRABAN barcode size: 103 mm × 13 mm.
const BARCODE_WIDTH = 103 * MM;
const BARCODE_HEIGHT = 13 * MM;

export async function boletoPdf(input: BoletoPdfInput, options: BoletoPdfOptions = {}): Promise<Buffer> {
  assertConsistent(input);
  const barcodePng = await boletoBarcodePng(input.barcode);
  const pixPng = input.pixCode ? await pixQrPng(input.pixCode) : undefined;
  // Margin 0 so pdfkit never flows text onto a second page; every position below is explicit.
  const doc = new PDFDocument({
    size: 'A4',
    margin: 0,
    compress: options.compress ?? true,
    info: { Title: 'Boleto bancário' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  drawPayerReceipt(doc, input, 36);
  drawCutLine(doc, 190);
  drawCompensationSlip(doc, input, 206, barcodePng);
  if (pixPng) drawPixQr(doc, pixPng);
  doc.end();
  return finished;
}

/** The printed line, barcode, amount and due date must describe the same boleto. */
function assertConsistent(input: BoletoPdfInput): void {
  if (digitableLineToBarcode(input.digitableLine) !== input.barcode) {
    throw new RangeError('digitableLine and barcode describe different boletos');
  }
  const fields = readBoletoBarcode(input.barcode);
  const surcharge = input.surchargeCents ?? 0;
  if (!Number.isInteger(surcharge) || surcharge < 0 || surcharge > input.amountCents)
    throw new RangeError(`surchargeCents ${surcharge} is not part of amountCents ${input.amountCents}`);
  if (fields.amountCents !== input.amountCents)
    throw new RangeError(`amountCents ${input.amountCents} differs from the barcode's ${fields.amountCents}`);
  if (fields.dueFactor !== boletoDueFactor(input.dueDate))
    throw new RangeError(`dueDate ${input.dueDate} differs from the barcode's due factor ${fields.dueFactor}`);
}

function drawPayerReceipt(doc: Doc, input: BoletoPdfInput, top: number): void {
  drawHeader(doc, input, top);
  doc
    .font('Helvetica-Bold')
    .fontSize(8)
    .text('Recibo do Pagador', LEFT, top + ROW + 4);
  const y = top + ROW + 16;
  const middle = 130;
  const wide = WIDTH - RIGHT_COLUMN - middle;
  const right = LEFT + wide + middle;
  const half = wide / 2;
  const beneficiary = partyLine(input.beneficiary);
  field(doc, LEFT, y, wide, ROW, 'Beneficiário', beneficiary);
  field(doc, LEFT + wide, y, middle, ROW, 'Agência/Código do beneficiário', input.beneficiaryCode ?? '');
  field(doc, right, y, RIGHT_COLUMN, ROW, 'Vencimento', formatBrDate(input.dueDate), { bold: true, align: 'right' });
  field(doc, LEFT, y + ROW, wide, ROW, 'Pagador', partyLine(input.payer));
  field(doc, LEFT + wide, y + ROW, middle, ROW, 'Nosso número', input.ourNumber ?? '');
  field(doc, right, y + ROW, RIGHT_COLUMN, ROW, '(=) Valor do documento', formatBrl(documentValue(input)), {
    align: 'right',
  });
  field(doc, LEFT, y + 2 * ROW, half, ROW, 'Nº do documento', input.documentNumber ?? '');
  field(doc, LEFT + half, y + 2 * ROW, half, ROW, 'Data do documento', dateOf(input.issueDate));
  field(doc, LEFT + wide, y + 2 * ROW, middle, ROW, 'Carteira / Espécie', `${input.carteira ?? ''} / R$`);
  field(doc, right, y + 2 * ROW, RIGHT_COLUMN, ROW, '(+) Juros / Multa', surchargeOf(input), { align: 'right' });
  field(doc, right, y + 3 * ROW, RIGHT_COLUMN, ROW, '(=) Valor cobrado', formatBrl(input.amountCents), {
    bold: true,
    align: 'right',
  });
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .text('Autenticação mecânica', LEFT, y + 3 * ROW + 4, { width: wide + middle });
}

function drawCompensationSlip(doc: Doc, input: BoletoPdfInput, top: number, barcodePng: Buffer): void {
  drawHeader(doc, input, top);
  const left = WIDTH - RIGHT_COLUMN;
  const right = LEFT + left;
  let y = top + ROW;
  const place = input.paymentPlace ?? 'Pagável em qualquer banco ou app de banco até o vencimento';
  field(doc, LEFT, y, left, ROW, 'Local de pagamento', place);
  field(doc, right, y, RIGHT_COLUMN, ROW, 'Vencimento', formatBrDate(input.dueDate), { bold: true, align: 'right' });
  y += ROW;
  const beneficiary = partyLine(input.beneficiary);
  field(doc, LEFT, y, left, ROW, 'Beneficiário', beneficiary);
  field(doc, right, y, RIGHT_COLUMN, ROW, 'Agência/Código do beneficiário', input.beneficiaryCode ?? '', {
    align: 'right',
  });
  y += ROW;
  const cells = (labels: Array<[string, string]>) => {
    const width = left / labels.length;
    labels.forEach(([label, value], index) => field(doc, LEFT + index * width, y, width, ROW, label, value));
  };
  cells([
    ['Data do documento', dateOf(input.issueDate)],
    ['Nº do documento', input.documentNumber ?? ''],
    ['Espécie doc.', input.documentKind ?? ''],
    ['Aceite', input.acceptance ?? ''],
    ['Data processamento', dateOf(input.processingDate)],
  ]);
  field(doc, right, y, RIGHT_COLUMN, ROW, 'Nosso número', input.ourNumber ?? '', { align: 'right' });
  y += ROW;
  cells([
    ['Uso do banco', ''],
    ['Carteira', input.carteira ?? ''],
    ['Espécie', 'R$'],
    ['Quantidade', ''],
    ['Valor', ''],
  ]);
  field(doc, right, y, RIGHT_COLUMN, ROW, '(=) Valor do documento', formatBrl(documentValue(input)), {
    bold: true,
    align: 'right',
  });
  y += ROW;
  const instructions = (input.instructions ?? []).join('\n');
  field(doc, LEFT, y, left, 3 * ROW, 'Instruções (texto de responsabilidade do beneficiário)', instructions);
  field(doc, right, y, RIGHT_COLUMN, ROW, '(-) Desconto / Abatimento', '');
  field(doc, right, y + ROW, RIGHT_COLUMN, ROW, '(+) Juros / Multa', surchargeOf(input), { align: 'right' });
  field(doc, right, y + 2 * ROW, RIGHT_COLUMN, ROW, '(=) Valor cobrado', formatBrl(input.amountCents), {
    bold: true,
    align: 'right',
  });
  y += 3 * ROW;
  field(doc, LEFT, y, WIDTH, 1.6 * ROW, 'Pagador', [partyLine(input.payer), input.payer.address ?? ''].join('\n'));
  y += 1.6 * ROW;
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .text('Autenticação mecânica — Ficha de Compensação', LEFT, y + 3, { width: WIDTH, align: 'right' });
  doc.image(barcodePng, LEFT, y + 14, { width: BARCODE_WIDTH, height: BARCODE_HEIGHT });
}

/** Boleto híbrido: the charge's Pix QR code below the slip, with how to use it. */
function drawPixQr(doc: Doc, png: Buffer): void {
  const top = 560;
  const size = 40 * MM;
  doc.image(png, LEFT, top, { width: size, height: size });
  doc
    .font('Helvetica-Bold')
    .fontSize(10)
    .fillColor('black')
    .text('Pague com Pix', LEFT + size + 12, top + 12);
  doc
    .font('Helvetica')
    .fontSize(8.5)
    .text(
      'Este boleto também pode ser pago com o Pix: escaneie o QR Code no aplicativo do seu banco. O valor é o mesmo do código de barras.',
      LEFT + size + 12,
      top + 28,
      { width: WIDTH - size - 12 },
    );
}
