import { announce, byId, element } from './dom.ts';
import { receiptView, type ReceiptFacts } from './receipt.ts';

/** How the view of a pix or boleto changes as its poll learns what became of the payment. */
export type PaymentView = { paid(): void; lapsed(): void; gaveUp(): void };

/** Replaces the form by the outcome; the live line then speaks only to screen readers (the heading says it). */
export function show(heading: string, ...children: Node[]): HTMLElement {
  byId('checkout-form')!.hidden = true;
  byId('live-status')?.classList.add('sr-only');
  document.body.classList.add('has-result');
  const section = byId('result')!;
  section.replaceChildren(element('h2', { id: 'result-heading' }, heading), ...children);
  section.hidden = false;
  section.focus();
  return section;
}

/** Turns a pix or boleto view into the confirmation: its heading, its status line, the receipt. */
export function showConfirmed(status: HTMLElement, text: string, facts: ReceiptFacts): void {
  byId('result-heading')!.textContent = 'Pagamento confirmado';
  status.textContent = text;
  status.classList.add('success');
  status.after(receiptView(facts));
  announce('Pagamento confirmado.', 'success');
}

/** The status line of a lapsed pix or boleto says it, as an alert, instead of a second copy in the live status. */
export function showLapsed(status: HTMLElement, text: string): void {
  announce('');
  status.setAttribute('role', 'alert');
  status.textContent = text;
}

export function countdown(target: HTMLElement, expiresAt: string, expired: () => void): () => void {
  const end = Date.parse(expiresAt);
  const tick = () => {
    const left = Math.max(0, Math.floor((end - Date.now()) / 1000));
    target.textContent = `Expira em ${String(Math.floor(left / 60)).padStart(2, '0')}:${String(left % 60).padStart(2, '0')}`;
    if (left === 0) expired();
  };
  tick();
  const timer = setInterval(tick, 1000);
  return () => clearInterval(timer);
}
