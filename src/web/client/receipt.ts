import { byId, element } from './dom.ts';
import { brl } from './format.ts';

/** What a success view tells the buyer; each part is shown when known. */
export type ReceiptFacts = {
  method: 'credit_card' | 'pix' | 'bank_slip';
  amountCents?: number;
  /** Card installments: one entry per card, `count` × `valueCents` each. */
  cards?: { count: number; valueCents: number }[];
  orderNumber?: string;
  /** The gateway's code of a card payment, when the page has no order number to show. */
  paymentCode?: string;
  email?: string;
};

const METHOD_NAMES = { credit_card: 'Cartão de crédito', pix: 'Pix', bank_slip: 'Boleto bancário' } as const;

function howPaid(facts: ReceiptFacts): string {
  if (facts.method !== 'credit_card' || !facts.cards?.length) return METHOD_NAMES[facts.method];
  const parts = facts.cards.map((card) =>
    card.count === 1 ? 'à vista' : `em ${card.count}x de ${brl(card.valueCents)}`,
  );
  if (facts.cards.length === 1) return `Cartão de crédito, ${parts[0]}`;
  // Each card's own amount first: the buyer checks each against its statement.
  const amounts = facts.cards.map((card, index) => `${brl(card.count * card.valueCents)} ${parts[index]}`);
  return `Dois cartões: ${amounts.join(' e ')}`;
}

/** The items of the page's order summary (names, quantities, amounts), as the form showed them. */
function orderSummary(): HTMLElement | undefined {
  const items = [...document.querySelectorAll<HTMLElement>('ul.products li')];
  if (!items.length) return undefined;
  const list = element('ul', { class: 'summary-items' });
  for (const item of items) {
    const name = item.querySelector('strong')?.textContent ?? '';
    const quantity = Math.max(1, Number(item.querySelector<HTMLInputElement>('.quantity')?.value) || 1);
    const cents = Number(item.dataset.valueCents) * quantity;
    list.append(element('li', {}, `${quantity} × ${name}: ${brl(cents)}`));
  }
  // The summary's lines as the form showed them (subtotal, discount, freight, fine, installment interest…).
  for (const line of document.querySelectorAll<HTMLElement>('#summary-lines .summary-line:not([hidden])')) {
    const label = line.querySelector('.label')?.textContent ?? '';
    const figure = line.querySelector('.figure');
    const sign = figure?.classList.contains('minus') ? '− ' : '';
    list.append(element('li', { class: 'summary-line-copy' }, `${label} ${sign}${figure?.textContent ?? ''}`));
  }
  const box = element('div', { class: 'receipt-summary' });
  box.append(element('h3', {}, 'Resumo do pedido'), list);
  return box;
}

/** Amount paid, how, the order number and where the receipt goes, then the order's items. */
export function receiptView(facts: ReceiptFacts): HTMLElement {
  const box = element('div', { id: 'receipt' });
  const list = element('dl', { class: 'receipt' });
  const row = (term: string, id: string, value: string | undefined) => {
    if (value) list.append(element('dt', {}, term), element('dd', { id }, value));
  };
  row('Valor pago', 'receipt-amount', facts.amountCents !== undefined ? brl(facts.amountCents) : undefined);
  row('Pagamento', 'receipt-method', howPaid(facts));
  row('Pedido', 'receipt-order', facts.orderNumber ? `nº ${facts.orderNumber}` : undefined);
  if (!facts.orderNumber) row('Código do pagamento', 'receipt-code', facts.paymentCode);
  box.append(list);
  box.append(
    element(
      'p',
      { id: 'receipt-email' },
      facts.email
        ? `O comprovante será enviado para ${facts.email}.`
        : 'O comprovante será enviado para o e-mail cadastrado nesta cobrança.',
    ),
  );
  const summary = orderSummary();
  if (summary) box.append(summary);
  return box;
}

/** Fills the facts a payment's status answer knows (`/pay/status/{uid}`): amount, installments, order number. */
export function withStatus(facts: ReceiptFacts, status: Record<string, unknown> | undefined): ReceiptFacts {
  if (!status) return facts;
  const next = { ...facts };
  if (typeof status.amount === 'number') next.amountCents = Math.round(status.amount * 100);
  if (typeof status.order_number === 'string') next.orderNumber = status.order_number;
  return next;
}

/** Replaces a receipt already shown (its facts were completed by a later answer). */
export function refreshReceipt(facts: ReceiptFacts): void {
  byId('receipt')?.replaceWith(receiptView(facts));
}
