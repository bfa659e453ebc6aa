/** A one-page printable boleto (A4): "Recibo do Pagador" on top, "Ficha de Compensação" with the barcode below. */

import PDFDocument from 'pdfkit';
import {
  bankCodeCheckDigit,
  boletoDueFactor,
  digitableLineToBarcode,
  formatDigitableLine,
  readBoletoBarcode,
} from '../boleto.ts';
import { boletoBarcodePng } from './boleto-barcode.ts';
import { formatBrDate, formatBrl, formatTaxId } from './boleto-pdf-text.ts';

export interface BoletoParty {
  name: string;
  /** CPF or CNPJ, digits (or alphanumeric CNPJ) without punctuation. */
  taxId?: string;
  address?: string;
}

export interface BoletoPdfInput {
  bankName?: string;
  beneficiary: BoletoParty;
  payer: BoletoParty;
  amountCents: number;
  /** 'YYYY-MM-DD'. */
  dueDate: string;
  digitableLine: string;
  barcode: string;
  documentNumber?: string;
  /** As the bank prints it (for Banco do Brasil: agreement + sequence, 17 digits). */
  ourNumber?: string;
  /** 'YYYY-MM-DD'. */
  issueDate?: string;
  instructions?: string[];
  paymentPlace?: string;
}

export interface BoletoPdfOptions {
  /** false leaves the content streams readable (tests search them for the digitable line). */
  compress?: boolean;
}

type Doc = PDFKit.PDFDocument;

const LEFT = 36;
const WIDTH = 523;
const RIGHT_COLUMN = 150;
const ROW = 26;
const MM = 72 / 25.4;
// FEBRABAN barcode size: 103 mm × 13 mm.
const BARCODE_WIDTH = 103 * MM;
const BARCODE_HEIGHT = 13 * MM;

export async function boletoPdf(input: BoletoPdfInput, options: BoletoPdfOptions = {}): Promise<Buffer> {
  assertConsistent(input);
  const barcodePng = await boletoBarcodePng(input.barcode);
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
  doc.end();
  return finished;
}

/** The printed line, barcode, amount and due date must describe the same boleto. */
function assertConsistent(input: BoletoPdfInput): void {
  if (digitableLineToBarcode(input.digitableLine) !== input.barcode) {
    throw new RangeError('digitableLine and barcode describe different boletos');
  }
  const fields = readBoletoBarcode(input.barcode);
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
  field(doc, LEFT, y, wide, ROW, 'Beneficiário', input.beneficiary.name);
  field(doc, LEFT + wide, y, middle, ROW, 'CPF/CNPJ do beneficiário', taxIdOf(input.beneficiary));
  field(doc, LEFT + wide + middle, y, RIGHT_COLUMN, ROW, 'Vencimento', formatBrDate(input.dueDate), {
    bold: true,
    align: 'right',
  });
  field(doc, LEFT, y + ROW, wide, ROW, 'Pagador', input.payer.name);
  field(doc, LEFT + wide, y + ROW, middle, ROW, 'Nosso número', input.ourNumber ?? '');
  field(doc, LEFT + wide + middle, y + ROW, RIGHT_COLUMN, ROW, 'Valor do documento', formatBrl(input.amountCents), {
    bold: true,
    align: 'right',
  });
  field(doc, LEFT, y + 2 * ROW, wide, ROW, 'Nº do documento', input.documentNumber ?? '');
  field(
    doc,
    LEFT + wide,
    y + 2 * ROW,
    middle,
    ROW,
    'Data do documento',
    input.issueDate ? formatBrDate(input.issueDate) : '',
  );
  field(doc, LEFT + wide + middle, y + 2 * ROW, RIGHT_COLUMN, ROW, 'Espécie', 'R$', { align: 'right' });
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .text('Autenticação mecânica', LEFT, y + 3 * ROW + 4, { width: WIDTH, align: 'right' });
}

function drawCutLine(doc: Doc, y: number): void {
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

function drawCompensationSlip(doc: Doc, input: BoletoPdfInput, top: number, barcodePng: Buffer): void {
  drawHeader(doc, input, top);
  const left = WIDTH - RIGHT_COLUMN;
  const right = LEFT + left;
  let y = top + ROW;
  field(
    doc,
    LEFT,
    y,
    left,
    ROW,
    'Local de pagamento',
    input.paymentPlace ?? 'Pagável em qualquer banco ou app de banco até o vencimento',
  );
  field(doc, right, y, RIGHT_COLUMN, ROW, 'Vencimento', formatBrDate(input.dueDate), { bold: true, align: 'right' });
  y += ROW;
  const beneficiary = [input.beneficiary.name, taxIdOf(input.beneficiary)].filter(Boolean).join(' — ');
  field(doc, LEFT, y, left, ROW, 'Beneficiário', beneficiary);
  field(doc, right, y, RIGHT_COLUMN, ROW, 'Nosso número', input.ourNumber ?? '', { align: 'right' });
  y += ROW;
  const third = left / 3;
  field(doc, LEFT, y, third, ROW, 'Data do documento', input.issueDate ? formatBrDate(input.issueDate) : '');
  field(doc, LEFT + third, y, third, ROW, 'Nº do documento', input.documentNumber ?? '');
  field(doc, LEFT + 2 * third, y, third, ROW, 'Espécie', 'R$');
  field(doc, right, y, RIGHT_COLUMN, ROW, '(=) Valor do documento', formatBrl(input.amountCents), {
    bold: true,
    align: 'right',
  });
  y += ROW;
  const instructions = (input.instructions ?? []).join('\n');
  field(doc, LEFT, y, left, 3 * ROW, 'Instruções (texto de responsabilidade do beneficiário)', instructions);
  field(doc, right, y, RIGHT_COLUMN, ROW, '(-) Desconto / Abatimento', '');
  field(doc, right, y + ROW, RIGHT_COLUMN, ROW, '(+) Juros / Multa', '');
  field(doc, right, y + 2 * ROW, RIGHT_COLUMN, ROW, '(=) Valor cobrado', '');
  y += 3 * ROW;
  const payer = [[input.payer.name, taxIdOf(input.payer)].filter(Boolean).join(' — '), input.payer.address ?? ''].join(
    '\n',
  );
  field(doc, LEFT, y, WIDTH, 1.6 * ROW, 'Pagador', payer);
  y += 1.6 * ROW;
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .text('Autenticação mecânica — Ficha de Compensação', LEFT, y + 3, { width: WIDTH, align: 'right' });
  doc.image(barcodePng, LEFT, y + 14, { width: BARCODE_WIDTH, height: BARCODE_HEIGHT });
}

/** Bank name | bank code with its check digit | digitable line, the first line of each part. */
function drawHeader(doc: Doc, input: BoletoPdfInput, top: number): void {
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
function field(
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

function taxIdOf(party: BoletoParty): string {
  return party.taxId ? formatTaxId(party.taxId) : '';
}
