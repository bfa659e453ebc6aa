import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRequire } from 'node:module';
import QRCode from 'qrcode';
import { buildBoleto, boletoFreeField, formatDigitableLine } from '../../src/brazil/boleto.ts';
import { buildPixBrCode } from '../../src/brazil/pix.ts';
import {
  boletoBarcodePng,
  boletoBarcodeSvg,
  boletoPdf,
  pixQrPngBase64,
  pixQrSvg,
  type BoletoPdfInput,
} from '../../src/brazil/render/index.ts';
import { pixQrModules } from '../../src/brazil/render/pix-qr.ts';
import { decodeInterleaved2of5Svg } from './support/interleaved-2-of-5.ts';
import { pdfPageCount, pdfShownText } from './support/pdf-text.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PIX_CODE = buildPixBrCode({
  key: 'fulano@example.com',
  amountCents: 12345,
  merchantName: 'Açaí do João',
  merchantCity: 'Belém',
  txid: 'PEDIDO42',
});
const BOLETO = buildBoleto({
  bankCode: '001',
  dueDate: '2026-06-30',
  amountCents: 102656,
  freeField: boletoFreeField({ agreement: '1149718', ourNumber: '42', carteira: '17' }),
});

// pngjs comes with qrcode; as a decoder written by others it checks that our PNG is read as intended.
const { PNG } = createRequire(import.meta.url)('pngjs') as {
  PNG: { sync: { read(png: Buffer): { width: number; height: number; data: Buffer } } };
};
const decodePng = (png: Buffer) => PNG.sync.read(png);

function pngSize(png: Buffer): { width: number; height: number } {
  assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE, 'PNG signature');
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('Pix QR Code images', () => {
  test('PNG: base64 without a data: prefix, a square image of a plausible size', async () => {
    const base64 = await pixQrPngBase64(PIX_CODE);
    assert.match(base64, /^[A-Za-z0-9+/]+=*$/);
    const png = Buffer.from(base64, 'base64');
    const { width, height } = pngSize(png);
    assert.equal(width, height);
    assert.ok(width >= 200 && width <= 1000, `width ${width}`);
    assert.ok(png.length > 500, `${png.length} bytes`);
  });

  test('PNG uses error correction M: the module count matches an M symbol of this code', async () => {
    const png = Buffer.from(await pixQrPngBase64(PIX_CODE), 'base64');
    const modulesAtM = QRCode.create(PIX_CODE, { errorCorrectionLevel: 'M' }).modules.size;
    const modulesAtH = QRCode.create(PIX_CODE, { errorCorrectionLevel: 'H' }).modules.size;
    assert.notEqual(modulesAtM, modulesAtH, 'this code needs a bigger symbol at H');
    // 8 pixels a module, 4 modules of quiet zone on each side.
    assert.equal(pngSize(png).width, (modulesAtM + 8) * 8);
  });

  test('PNG: an independent decoder sees exactly the image qrcode renders for this code, pixel by pixel', async () => {
    const ours = Buffer.from(await pixQrPngBase64(PIX_CODE), 'base64');
    const reference = await QRCode.toBuffer(PIX_CODE, { errorCorrectionLevel: 'M', margin: 4, scale: 8, type: 'png' });
    const [mine, theirs] = [decodePng(ours), decodePng(reference)];
    assert.equal(mine.width, theirs.width);
    assert.equal(mine.height, theirs.height);
    let dark = 0;
    for (let pixel = 0; pixel < mine.width * mine.height; pixel++) {
      const [r, g, b, a] = mine.data.subarray(pixel * 4, pixel * 4 + 4);
      assert.ok(r === g && g === b && a === 255 && (r === 0 || r === 255), `pixel ${pixel} is black or white`);
      if (r !== theirs.data[pixel * 4])
        assert.fail(`pixel ${pixel % mine.width},${Math.floor(pixel / mine.width)} differs`);
      if (r === 0) dark++;
    }
    assert.ok(dark > mine.width * mine.height * 0.2, 'a plausible share of dark pixels');
  });

  test('our mask selection picks the mask and modules qrcode picks, for codes of every size a Pix has', () => {
    const masksSeen = new Set<number>();
    const sizesSeen = new Set<number>();
    for (let i = 0; i < 120; i++) {
      const code = buildPixBrCode({
        key: `buyer${i}@example.com`,
        amountCents: 1 + i * 9_973,
        merchantName: `Loja ${'x'.repeat(i % 21)}`,
        merchantCity: 'São Paulo',
        txid: `T${i.toString(36)}${'k'.repeat(i % 22)}`,
      });
      const reference = QRCode.create(code, { errorCorrectionLevel: 'M' });
      const ours = pixQrModules(code);
      assert.equal(ours.size, reference.modules.size);
      for (let row = 0; row < ours.size; row++) {
        for (let col = 0; col < ours.size; col++)
          if (ours.get(row, col) !== reference.modules.get(row, col))
            assert.fail(`code ${i}: module ${row},${col} differs`);
      }
      masksSeen.add(reference.maskPattern!);
      sizesSeen.add(ours.size);
    }
    // The comparison covered several masks and symbol versions, not one lucky case.
    assert.ok(masksSeen.size >= 4, `masks ${[...masksSeen]}`);
    assert.ok(sizesSeen.size >= 2, `sizes ${[...sizesSeen]}`);
  });

  test('SVG markup', async () => {
    const svg = await pixQrSvg(PIX_CODE);
    assert.ok(svg.includes('<svg'));
    const modules = QRCode.create(PIX_CODE, { errorCorrectionLevel: 'M' }).modules.size;
    assert.ok(svg.includes(`viewBox="0 0 ${modules + 8} ${modules + 8}"`), svg.slice(0, 120));
  });

  test('refuses to draw something that is not a valid BR Code', async () => {
    await assert.rejects(pixQrPngBase64(PIX_CODE.slice(0, -1) + (PIX_CODE.endsWith('0') ? '1' : '0')), /wrong CRC/);
    await assert.rejects(pixQrSvg('hello'), RangeError);
  });
});

describe('boleto barcode images', () => {
  test('SVG draws exactly the 44 digits in Interleaved 2 of 5, no check digit added', () => {
    const svg = boletoBarcodeSvg(BOLETO.barcode);
    assert.ok(svg.includes('<svg'));
    assert.equal(decodeInterleaved2of5Svg(svg), BOLETO.barcode);
  });

  test('the SVG decoder tells two barcodes apart', () => {
    const other = buildBoleto({
      bankCode: '341',
      dueDate: '2030-01-01',
      amountCents: 1,
      freeField: '1'.repeat(25),
    }).barcode;
    assert.equal(decodeInterleaved2of5Svg(boletoBarcodeSvg(other)), other);
  });

  test('PNG: signature, wide and short, about 405 modules at 3 pixels each', async () => {
    const png = await boletoBarcodePng(BOLETO.barcode);
    const { width, height } = pngSize(png);
    // 44 digits: start (4) + 22 pairs × 18 + stop (5) = 405 modules with a 3:1 wide/narrow ratio.
    assert.ok(Math.abs(width - 405 * 3) <= 2, `width ${width}`);
    assert.ok(height > 30 && height < width / 4, `height ${height}`);
  });

  test('refuses a barcode with a wrong check digit or length', async () => {
    const wrong = `${BOLETO.barcode.slice(0, 4)}${(Number(BOLETO.barcode[4]) + 1) % 10}${BOLETO.barcode.slice(5)}`;
    assert.throws(() => boletoBarcodeSvg(wrong), /general check digit/);
    await assert.rejects(boletoBarcodePng(BOLETO.barcode.slice(1)), /44 digits/);
  });
});

describe('boleto PDF', () => {
  const input: BoletoPdfInput = {
    bankName: 'Banco do Brasil',
    beneficiary: { name: 'Açaí do João Comércio Ltda', taxId: '11222333000181' },
    payer: { name: 'Maria da Conceição', taxId: '52998224725', address: 'Rua das Flores, 123, São Paulo/SP' },
    amountCents: 102656,
    dueDate: '2026-06-30',
    digitableLine: BOLETO.digitableLine,
    barcode: BOLETO.barcode,
    documentNumber: 'PED-42',
    ourNumber: '11497180000000042',
    issueDate: '2026-06-01',
    instructions: ['Não receber após 30 dias do vencimento.'],
  };

  test('one page with the digitable line, the pt-BR labels and the values', async () => {
    const pdf = await boletoPdf(input, { compress: false });
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pdf.subarray(-8).toString('latin1').includes('%%EOF'));
    assert.equal(pdfPageCount(pdf), 1);
    const shown = pdfShownText(pdf);
    const formatted = formatDigitableLine(BOLETO.digitableLine);
    assert.equal(shown.filter((text) => text === formatted).length, 2, 'the line heads both parts');
    for (const expected of [
      'Vencimento',
      'Valor do documento',
      'Linha digitável',
      'Ficha de Compensação',
      'Recibo do Pagador',
      'Beneficiário',
      'Pagador',
    ]) {
      assert.ok(
        shown.some((text) => text.includes(expected)),
        `missing ${expected}`,
      );
    }
    for (const value of [
      '30/06/2026',
      'R$ 1.026,56',
      '001-9',
      '11.222.333/0001-81',
      'Maria da Conceição',
      '529.982.247-25',
    ]) {
      assert.ok(
        shown.some((text) => text.includes(value)),
        `missing ${value}`,
      );
    }
  });

  test('every field of the ficha de compensação; an overdue charge shows its fine and interest apart', async () => {
    const overdue = { ...input, surchargeCents: 2_056, processingDate: '2026-06-02', beneficiaryCode: '1149718' };
    const shown = pdfShownText(
      await boletoPdf({ ...overdue, carteira: '17', documentKind: 'DM', acceptance: 'N' }, { compress: false }),
    );
    for (const label of [
      'Local de pagamento',
      'Agência/Código do beneficiário',
      'Nosso número',
      'Nº do documento',
      'Data do documento',
      'Data processamento',
      'Espécie doc.',
      'Aceite',
      'Carteira',
      'Espécie',
      '(=) Valor do documento',
      '(+) Juros / Multa',
      '(=) Valor cobrado',
      'Instruções (texto de responsabilidade do beneficiário)',
    ])
      assert.ok(shown.includes(label), `missing the label ${label}`);
    for (const value of [
      '11497180000000042',
      'PED-42',
      '01/06/2026',
      '02/06/2026',
      '1149718',
      'DM',
      'N',
      '17',
      'R$ 1.006,00',
      'R$ 20,56',
      'R$ 1.026,56',
      'Não receber após 30 dias do vencimento.',
    ])
      assert.ok(shown.includes(value), `missing ${value}`);
    await assert.rejects(boletoPdf({ ...input, surchargeCents: 102_657 }), /surchargeCents/);
  });

  test('a boleto híbrido prints the Pix QR code of the same charge', async () => {
    const plain = (await boletoPdf(input, { compress: false })).toString('latin1');
    const hybrid = (await boletoPdf({ ...input, pixCode: PIX_CODE }, { compress: false })).toString('latin1');
    const images = (pdf: string) => pdf.match(/\/Subtype \/Image/g)?.length ?? 0;
    assert.equal(images(hybrid), images(plain) + 1);
    assert.ok(pdfShownText(Buffer.from(hybrid, 'latin1')).includes('Pague com Pix'));
    await assert.rejects(boletoPdf({ ...input, pixCode: 'not a BR Code' }));
  });

  test('embeds the barcode image', async () => {
    const pdf = (await boletoPdf(input, { compress: false })).toString('latin1');
    assert.match(pdf, /\/Subtype \/Image/);
  });

  test('compressed by default: the text is no longer in clear', async () => {
    const pdf = await boletoPdf(input);
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pdf.toString('latin1').includes('/FlateDecode'));
    assert.equal(pdfShownText(pdf).length, 0);
  });

  test('refuses a line, amount or due date that disagrees with the barcode', async () => {
    const other = buildBoleto({
      bankCode: '001',
      dueDate: '2026-06-30',
      amountCents: 102657,
      freeField: '0'.repeat(25),
    });
    await assert.rejects(boletoPdf({ ...input, digitableLine: other.digitableLine }), /different boletos/);
    await assert.rejects(boletoPdf({ ...input, amountCents: 102657 }), /amountCents/);
    await assert.rejects(boletoPdf({ ...input, dueDate: '2026-07-01' }), /dueDate/);
  });
});
