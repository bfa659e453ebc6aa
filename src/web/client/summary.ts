import { byId, element } from './dom.ts';
import { brl } from './format.ts';

/** What the page's items cost at the quantities chosen: each item's unit value times its quantity. */
export function itemsCents(): number {
  return [...document.querySelectorAll<HTMLElement>('ul.products li')].reduce((sum, item) => {
    const quantity = Math.max(1, Math.floor(Number(item.querySelector<HTMLInputElement>('.quantity')?.value) || 1));
    return sum + Number(item.dataset.valueCents) * quantity;
  }, 0);
}

function showComputed(id: 'discount' | 'interest', cents: number, label?: string): void {
  const line = byId(`summary-${id}-line`);
  if (!line) return;
  line.hidden = cents <= 0;
  byId(`summary-${id}`)!.textContent = brl(Math.max(cents, 0));
  if (label) byId(`summary-${id}-label`)!.textContent = label;
}

/**
 * Keeps the order summary's lines to what the buyer is charged. `baseCents` is the quoted total before installment
 * interest and `totalCents` the chosen option's (or both cards') total: a page's subtotal follows the quantities,
 * the coupon's discount is what the fixed lines add up to beyond the base, and the installment interest is what
 * the total adds to it.
 */
export function showSummary(kind: string, quote: { baseCents: number; totalCents: number; coupon: string }): void {
  const lines = byId('summary-lines');
  if (!lines || quote.baseCents <= 0) return;
  const subtotal = byId('summary-subtotal');
  if (kind === 'page' && subtotal) {
    const cents = itemsCents();
    subtotal.textContent = brl(cents);
    subtotal.parentElement!.dataset.cents = String(cents);
  }
  const fixedCents = [...lines.querySelectorAll<HTMLElement>('[data-cents]')].reduce(
    (sum, line) => sum + Number(line.dataset.cents),
    0,
  );
  showComputed(
    'discount',
    fixedCents - quote.baseCents,
    quote.coupon ? `Desconto (cupom ${quote.coupon}):` : 'Desconto:',
  );
  showComputed('interest', quote.totalCents - quote.baseCents);
}

/**
 * The summary's fixed lines as the service renders them now, in place of those the page was loaded with: after the
 * price moved (an overdue charge's late interest grows at the company's midnight, a fine starts), every line has to
 * add up to the new total again.
 */
export async function reloadSummaryLines(): Promise<void> {
  const current = byId('summary-lines');
  if (!current) return;
  const response = await fetch(location.href, { headers: { accept: 'text/html' } }).catch(() => undefined);
  if (!response?.ok) return;
  const page = new DOMParser().parseFromString(await response.text(), 'text/html');
  const fresh = page.getElementById('summary-lines');
  if (fresh) current.replaceWith(document.adoptNode(fresh));
}

/** With two cards, what each card is charged and how, under the total; hidden otherwise. */
export function showCardShares(cards: { count: number; valueCents: number }[] | undefined): void {
  const list = byId('summary-cards');
  if (!list) return;
  list.hidden = !cards;
  list.replaceChildren(
    ...(cards ?? []).map((card, index) =>
      element(
        'li',
        {},
        `Cartão ${index + 1}: ${brl(card.count * card.valueCents)} ${card.count === 1 ? 'à vista' : `em ${card.count}x de ${brl(card.valueCents)}`}`,
      ),
    ),
  );
}
