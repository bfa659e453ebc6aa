import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildPixBrCode, parsePixBrCode, pixKeyType, pixTxid, type PixBrCodeInput } from '../../src/brazil/pix.ts';

const BCB_STATIC_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const STATIC_INPUT: PixBrCodeInput = {
  key: '123e4567-e12b-12d1-a456-426655440000',
  merchantName: 'Fulano de Tal',
  merchantCity: 'BRASILIA',
  txid: '***',
};

describe('Pix BR Code: reference examples', () => {
  test('reproduces the BCB static example byte for byte from its inputs', () => {
    assert.equal(buildPixBrCode(STATIC_INPUT), BCB_STATIC_EXAMPLE);
  });

  test('parses the BCB example back into its inputs', () => {
    assert.deepEqual(parsePixBrCode(BCB_STATIC_EXAMPLE), { ...STATIC_INPUT, pointOfInitiation: 'static' });
  });

  test('static code with amount, description, CEP and txid: fields in the mandated order', () => {
    const code = buildPixBrCode({
      ...STATIC_INPUT,
      amountCents: 1000,
      description: 'Pedido 42',
      postalCode: '01310-100',
      txid: 'PEDIDO42',
    });
    const ids = topLevelIds(code);
    assert.deepEqual(ids, ['00', '26', '52', '53', '54', '58', '59', '60', '61', '62', '63']);
    assert.ok(code.includes('540510.00'), 'amount written as 10.00');
    assert.ok(code.includes('0209Pedido 42'), 'description in 26/02');
    assert.ok(code.includes('610801310100'), 'CEP without the hyphen');
    assert.ok(code.includes('62120508PEDIDO42'), 'txid in 62/05');
    assert.match(code, /6304[0-9A-F]{4}$/);
  });

  test('dynamic code: 01 = 12, location without https://, 62/05 = ***, even when given the cob txid', () => {
    const txid = pixTxid('payment-1');
    const code = buildPixBrCode({
      locationUrl: 'https://pix.example.com.br/qr/v2/cobv/9d36b84f',
      merchantName: 'Loja',
      merchantCity: 'Recife',
      txid,
    });
    assert.deepEqual(topLevelIds(code), ['00', '01', '26', '52', '53', '58', '59', '60', '62', '63']);
    assert.ok(code.startsWith('000201010212'));
    assert.ok(code.includes('2538pix.example.com.br/qr/v2/cobv/9d36b84f'));
    assert.ok(!code.includes('https://'));
    assert.ok(code.includes('62070503***'));
    assert.ok(!code.includes(txid));
  });

  test('an open amount leaves field 54 out', () => {
    assert.ok(!topLevelIds(buildPixBrCode(STATIC_INPUT)).includes('54'));
    assert.deepEqual(topLevelIds(buildPixBrCode({ ...STATIC_INPUT, amountCents: 1 })).slice(4, 6), ['54', '58']);
  });

  test('amounts are written with two decimals and no thousands separator', () => {
    const amountField = (amountCents: number) =>
      /5303986(?:54\d\d([0-9.]+))5802BR/.exec(buildPixBrCode({ ...STATIC_INPUT, amountCents }))?.[1];
    assert.equal(amountField(1), '0.01');
    assert.equal(amountField(10), '0.10');
    assert.equal(amountField(123456789), '1234567.89');
    assert.equal(amountField(999_999_999_999), '9999999999.99');
  });
});

describe('Pix BR Code: text normalisation', () => {
  const parsed = (merchantName: string, merchantCity: string) =>
    parsePixBrCode(buildPixBrCode({ ...STATIC_INPUT, merchantName, merchantCity }));

  test('removes accents, collapses spaces, keeps the name case and upper-cases the city', () => {
    const { merchantName, merchantCity } = parsed('  Açaí   do João ', 'São Paulo');
    assert.equal(merchantName, 'Acai do Joao');
    assert.equal(merchantCity, 'SAO PAULO');
  });

  test('cuts the name to 25 and the city to 15 characters, without a trailing space', () => {
    const { merchantName, merchantCity } = parsed('Comércio de Alimentos Fulano e Filhos Ltda', 'Aparecida de Goiânia');
    assert.equal(merchantName, 'Comercio de Alimentos Ful');
    assert.equal(merchantCity, 'APARECIDA DE GO');
    assert.equal(parsed('Padaria do Bairro Central X', 'Rio').merchantName, 'Padaria do Bairro Central');
    assert.equal(parsed('Loja', 'Sao Jose do Rio Preto').merchantCity, 'SAO JOSE DO RIO');
  });

  test('the description loses its accents too', () => {
    const code = buildPixBrCode({ ...STATIC_INPUT, description: 'Pão de queijo' });
    assert.equal(parsePixBrCode(code).description, 'Pao de queijo');
  });
});

describe('Pix BR Code: parsing our own codes', () => {
  test('round trip: what the parser reads back builds the same code', () => {
    const inputs: PixBrCodeInput[] = [
      {
        key: 'fulano@example.com',
        amountCents: 250075,
        merchantName: 'Fulano',
        merchantCity: 'Curitiba',
        txid: 'ABC123',
        description: 'Mensalidade',
        postalCode: '80010000',
      },
      { key: '+5511987654321', merchantName: 'Beltrano', merchantCity: 'Natal', txid: '***' },
      { key: '52998224725', amountCents: 99, merchantName: 'Cicrano', merchantCity: 'Belem', txid: 'x' },
      {
        locationUrl: 'psp.example.com/v2/abc',
        amountCents: 5000,
        merchantName: 'Loja',
        merchantCity: 'Manaus',
        txid: '***',
      },
    ];
    for (const input of inputs) {
      const code = buildPixBrCode(input);
      const { pointOfInitiation, ...readBack } = parsePixBrCode(code);
      assert.equal(pointOfInitiation, input.locationUrl ? 'dynamic' : 'static');
      assert.equal(buildPixBrCode(readBack), code);
    }
  });

  test('rejects a wrong CRC, a truncated code and a code without the Pix template', () => {
    assert.throws(() => parsePixBrCode(BCB_STATIC_EXAMPLE.replace(/1D3D$/, '1D3E')), {
      name: 'RangeError',
      message: /wrong CRC/,
    });
    assert.throws(() => parsePixBrCode(BCB_STATIC_EXAMPLE.replace('Fulano', 'Fulana')), /wrong CRC/);
    assert.throws(() => parsePixBrCode(BCB_STATIC_EXAMPLE.slice(0, 60)), RangeError);
    assert.throws(() => parsePixBrCode(''), RangeError);
    assert.throws(() => parsePixBrCode(withCrc('000201520400005303986')), /no merchant account template/);
  });

  test('reads a lower-case CRC and amounts with one decimal', () => {
    const body =
      '00020126330014br.gov.bcb.pix0111529982247255204000053039865403' + '9.55802BR5901A6001B62070503***6304';
    assert.equal(parsePixBrCode(withCrc(body)).amountCents, 950);
    const code = withCrc(body);
    assert.match(code, /[A-F]/, 'this CRC has letters, so lower-casing it matters');
    assert.equal(parsePixBrCode(code.slice(0, -4) + code.slice(-4).toLowerCase()).amountCents, 950);
  });
});

describe('Pix txid', () => {
  test('pixTxid is deterministic, 26–35 letters and digits, and differs between seeds', () => {
    assert.equal(pixTxid('pay_01HZX'), pixTxid('pay_01HZX'));
    assert.notEqual(pixTxid('pay_01HZX'), pixTxid('pay_01HZY'));
    assert.match(pixTxid('pay_01HZX'), /^[a-zA-Z0-9]{26,35}$/);
    assert.match(pixTxid('ção 😀'), /^[a-zA-Z0-9]{26,35}$/);
  });

  test('pixTxid refuses an empty seed', () => {
    assert.throws(() => pixTxid(''), RangeError);
  });
});

describe('Pix BR Code: invalid inputs throw RangeError', () => {
  const cases: Array<[string, Partial<PixBrCodeInput>, RegExp]> = [
    ['both key and location', { locationUrl: 'psp.example.com/x' }, /exactly one of key/],
    ['neither key nor location', { key: undefined }, /exactly one of key/],
    ['CPF with punctuation', { key: '529.982.247-25' }, /invalid Pix key/],
    ['CPF with wrong check digits', { key: '52998224724' }, /invalid Pix key/],
    ['phone without +55', { key: '11987654321' }, /invalid Pix key/],
    ['phone too short', { key: '+55119876' }, /invalid Pix key/],
    ['free text as key', { key: 'minha chave' }, /invalid Pix key/],
    ['key over 77 characters', { key: `${'a'.repeat(70)}@example.com` }, /invalid Pix key/],
    ['static txid of 26 characters', { txid: 'A'.repeat(26) }, /invalid static txid/],
    ['static txid with a hyphen', { txid: 'abc-1' }, /invalid static txid/],
    ['empty txid', { txid: '' }, /invalid static txid/],
    ['amount 0', { amountCents: 0 }, /amountCents/],
    ['negative amount', { amountCents: -100 }, /amountCents/],
    ['fractional cents', { amountCents: 10.5 }, /amountCents/],
    ['amount over 13 characters', { amountCents: 1_000_000_000_000 }, /amountCents/],
    ['empty name', { merchantName: '   ' }, /merchantName must not be empty/],
    ['name with no ASCII form', { merchantName: 'Straße' }, /merchantName has characters/],
    ['city with an emoji', { merchantCity: 'Rio 🌴' }, /merchantCity has characters/],
    ['CEP of 7 digits', { postalCode: '0131010' }, /postalCode/],
    [
      'field 26 over 99 characters',
      { key: `${'a'.repeat(50)}@example.com`, description: 'Pagamento do pedido 1234' },
      /field 26\) would be 112 characters; the limit is 99/,
    ],
  ];
  for (const [name, change, message] of cases) {
    test(name, () => {
      assert.throws(
        () => buildPixBrCode({ ...STATIC_INPUT, ...change }),
        (error: unknown) => error instanceof RangeError && message.test(error.message),
      );
    });
  }

  const dynamicInput: PixBrCodeInput = {
    locationUrl: 'psp.example.com/v2/abc',
    merchantName: 'Loja',
    merchantCity: 'Recife',
    txid: '***',
  };
  const dynamicCases: Array<[string, Partial<PixBrCodeInput>, RegExp]> = [
    ['http location', { locationUrl: 'http://psp.example.com/v2/abc' }, /must be https/],
    ['location with a query', { locationUrl: 'psp.example.com/v2?id=1' }, /invalid Pix location/],
    ['location without a dot in the host', { locationUrl: 'localhost/v2/abc' }, /invalid Pix location/],
    ['location over 77 characters', { locationUrl: `psp.example.com/${'a'.repeat(70)}` }, /invalid Pix location/],
    ['dynamic txid of 25 characters', { txid: 'A'.repeat(25) }, /invalid dynamic txid/],
    ['description in a dynamic code', { description: 'x' }, /only allowed in a static/],
  ];
  for (const [name, change, message] of dynamicCases) {
    test(`dynamic: ${name}`, () => {
      assert.throws(
        () => buildPixBrCode({ ...dynamicInput, ...change }),
        (error: unknown) => error instanceof RangeError && message.test(error.message),
      );
    });
  }

  test('the valid neighbours of those cases build', () => {
    assert.doesNotThrow(() => buildPixBrCode({ ...STATIC_INPUT, txid: 'A'.repeat(25), amountCents: 999_999_999_999 }));
    assert.doesNotThrow(() => buildPixBrCode({ ...dynamicInput, txid: 'A'.repeat(26) }));
    assert.doesNotThrow(() => buildPixBrCode({ ...STATIC_INPUT, key: `${'a'.repeat(65)}@example.com` }));
  });
});

describe('Pix key types', () => {
  test('recognises each DICT key format', () => {
    assert.equal(pixKeyType('52998224725'), 'cpf');
    assert.equal(pixKeyType('11222333000181'), 'cnpj');
    assert.equal(pixKeyType('12ABC34501DE35'), 'cnpj');
    assert.equal(pixKeyType('+5561988887777'), 'phone');
    assert.equal(pixKeyType('fulano@example.com'), 'email');
    assert.equal(pixKeyType('123e4567-e12b-12d1-a456-426655440000'), 'random');
    assert.equal(pixKeyType('a@b@example.com'), null);
  });
});

function topLevelIds(code: string): string[] {
  const ids: string[] = [];
  for (let position = 0; position < code.length; position += 4 + Number(code.slice(position + 2, position + 4)))
    ids.push(code.slice(position, position + 2));
  return ids;
}

function withCrc(bodyEndingIn6304: string): string {
  const body = bodyEndingIn6304.endsWith('6304') ? bodyEndingIn6304 : `${bodyEndingIn6304}6304`;
  let crc = 0xffff;
  for (const byte of Buffer.from(body, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return body + crc.toString(16).toUpperCase().padStart(4, '0');
}
