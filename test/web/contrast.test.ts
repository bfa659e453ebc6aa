import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { contrastRatio, textColorOn } from '../../src/web/checkout/contrast.ts';
import { layout } from '../../src/web/checkout/checkout.layout.ts';
import { html } from '../../src/web/payment-pages/html.ts';

describe('text on the merchant colour', () => {
  test('#0a7cff gets black text (white was 3.93:1); dark colours keep white', () => {
    assert.equal(Math.round(contrastRatio('#0a7cff', '#ffffff') * 100) / 100, 3.93);
    assert.equal(textColorOn('#0a7cff'), '#000000');
    assert.ok(contrastRatio('#0a7cff', '#000000') >= 4.5);
    assert.equal(textColorOn('#0b57d0'), '#ffffff');
    assert.equal(textColorOn('#2e7d32'), '#ffffff');
    assert.equal(textColorOn('#ffeb3b'), '#000000');
    assert.equal(textColorOn('#fff'), '#000000');
  });

  test('every colour gets a text colour of at least 4.5:1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (rgb) => {
        const color = `#${rgb.toString(16).padStart(6, '0')}`;
        assert.ok(contrastRatio(color, textColorOn(color)) >= 4.5, color);
      }),
      { numRuns: 2000 },
    );
  });

  test('the layout paints the header and buttons with the computed colour', () => {
    const page = layout({ title: 't', mainColor: '#0a7cff', index: false, header: html``, body: html`` });
    assert.match(page, /:root\{--main:#0a7cff;--on-main:#000000\}/);
    assert.match(page, /header\.brand\{background:var\(--main\);color:var\(--on-main\)/);
    assert.doesNotMatch(page, /background:var\(--main\);[^}]*color:#fff/);
  });
});
