import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc16CcittFalse } from '../../src/brazil/crc16.ts';

describe('CRC-16/CCITT-FALSE', () => {
  test('the catalogue check value: "123456789" → 29B1', () => {
    assert.equal(crc16CcittFalse('123456789'), '29B1');
  });

  test('the empty string leaves the initial value FFFF', () => {
    assert.equal(crc16CcittFalse(''), 'FFFF');
  });

  test('the BCB static example: CRC over the payload up to 6304 is 1D3D', () => {
    const payload =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304';
    assert.equal(crc16CcittFalse(payload), '1D3D');
  });

  test('always 4 upper-case hex digits, zero-padded', () => {
    const small = Array.from({ length: 5000 }, (_, i) => String(i)).find(
      (text) => parseInt(crc16CcittFalse(text), 16) < 0x1000,
    );
    assert.ok(small !== undefined, 'some short input has a CRC below 0x1000');
    assert.match(crc16CcittFalse(small), /^0[0-9A-F]{3}$/);
    assert.equal(crc16CcittFalse('A'), 'B915');
  });

  test('runs over UTF-8 bytes: "é" is C3 A9 (7ACB), not the single code unit E9', () => {
    assert.equal(crc16CcittFalse('é'), '7ACB');
  });
});
