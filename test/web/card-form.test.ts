import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cardBrand, cardErrors, formatExpiry, groupCardNumber, readExpiry } from '../../src/web/client/card-form.ts';

const NOW = new Date(2026, 10, 27); // November 2026, local time as the browser reads it

describe('the card form rules', () => {
  test('the brand is named once the first digits decide it', () => {
    assert.equal(cardBrand('4111 1111')?.name, 'Visa');
    assert.equal(cardBrand('5555555555554444')?.name, 'Mastercard');
    assert.equal(cardBrand('378282246310005')?.name, 'American Express');
    assert.equal(cardBrand('6362970000457013')?.name, 'Elo');
    assert.equal(cardBrand('6062825624254001')?.name, 'Hipercard');
    assert.equal(cardBrand(''), undefined);
    assert.equal(cardBrand('9999 9999 9999 9999'), undefined);
  });

  test('the number is grouped as the brand prints it', () => {
    assert.equal(groupCardNumber('4111111111111111'), '4111 1111 1111 1111');
    assert.equal(groupCardNumber('41111'), '4111 1');
    assert.equal(groupCardNumber('378282246310005'), '3782 822463 10005');
    assert.equal(groupCardNumber('4111-1111 1111'), '4111 1111 1111');
  });

  test('the expiry gets its slash as it is typed; a past month is "vencido", a wrong text invalid', () => {
    assert.equal(formatExpiry('1', false), '1');
    assert.equal(formatExpiry('12', false), '12/');
    assert.equal(formatExpiry('12', true), '12');
    assert.equal(formatExpiry('1234', false), '12/34');
    assert.deepEqual(readExpiry('11/26', NOW), { month: 11, year: 2026 });
    assert.equal(readExpiry('10/26', NOW), 'expired');
    assert.equal(readExpiry('12/2025', NOW), 'expired');
    assert.equal(readExpiry('13/30', NOW), 'invalid');
    assert.equal(readExpiry('1/30', NOW), 'invalid');
  });

  test('errors: Luhn and the brand lengths, "Cartão vencido", the CVV length of the brand', () => {
    const card = { number: '4111 1111 1111 1111', holder: 'MARIA', expiry: '12/30', cvv: '123' };
    assert.deepEqual(cardErrors('card0', card, NOW), []);
    assert.deepEqual(
      cardErrors('card0', { ...card, expiry: '10/26' }, NOW).map((error) => error.message),
      ['Cartão vencido: confira a validade ou use outro cartão.'],
    );
    assert.deepEqual(
      cardErrors('card0', { ...card, cvv: '1234' }, NOW).map((error) => error.message),
      ['O código de segurança deste cartão (Visa) tem 3 dígitos.'],
    );
    const amex = { ...card, number: '3782 822463 10005' };
    assert.deepEqual(
      cardErrors('card0', amex, NOW).map((error) => error.message),
      ['O código de segurança deste cartão (American Express) tem 4 dígitos.'],
    );
    assert.deepEqual(cardErrors('card0', { ...amex, cvv: '1234' }, NOW), []);
    assert.deepEqual(
      cardErrors('card0', { ...card, number: '4111 1111 1111 1112' }, NOW).map((error) => error.field),
      ['card0-number'],
    );
  });
});
