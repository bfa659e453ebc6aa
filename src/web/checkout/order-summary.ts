import { formatBrl, html, type SafeHtml } from '../payment-pages/html.ts';

/**
 * One line of the order summary between the items and the total. `cents` is signed (a discount or what was
 * paid before is negative); the lines and the total add up: what the items cost, less the discount, plus freight,
 * less what was already paid, plus an overdue charge's fine and late interest is the total before installment
 * interest, the base `GET /payment_plans` quotes and the pay endpoints charge.
 */
export type SummaryLine = {
  kind: 'subtotal' | 'discount' | 'freight' | 'paid' | 'fine' | 'late-interest';
  label: string;
  cents: number;
};

/**
 * The lines the bundle computes: a checkout page's or a cart's coupon discount (the subtotal and fixed lines less
 * the quoted base) and the installment interest of the chosen option (its total less the base); hidden at zero.
 */
function computedLine(id: 'discount' | 'interest', label: string): SafeHtml {
  return html`<p class="summary-line" id="summary-${id}-line" data-computed="${id}" hidden><span class="label" id="summary-${id}-label">${label}</span> <span class="figure${id === 'discount' ? ' minus' : ''}" id="summary-${id}">${formatBrl(0)}</span></p>`;
}

/**
 * Each line reads as a sentence ("Frete: R$ 15,00"); a subtracted amount carries its minus sign in the style,
 * so the sentence stays the amount itself.
 */
export function summaryLines(lines: SummaryLine[], discountComputed: boolean): SafeHtml {
  return html`<div id="summary-lines">
${lines.map(
  (line) =>
    html`<p class="summary-line" data-line="${line.kind}" data-cents="${line.cents}"><span class="label">${line.label}:</span> <span class="figure${line.cents < 0 ? ' minus' : ''}"${line.kind === 'subtotal' ? html` id="summary-subtotal"` : ''}>${formatBrl(Math.abs(line.cents))}</span></p>`,
)}
${discountComputed ? computedLine('discount', 'Desconto:') : ''}
${computedLine('interest', 'Juros do parcelamento:')}
</div>`;
}

export const SUMMARY_STYLE = `
.summary-line{margin:.25rem 0}
.summary-line .label{display:inline-block;width:calc(100% - 9rem);vertical-align:top}
.summary-line .figure{display:inline-block;width:8.5rem;text-align:right;white-space:nowrap;vertical-align:top}
.summary-line .minus::before{content:"− "}
.summary-cards{margin:.25rem 0 0;padding-left:1.25rem}
`;
