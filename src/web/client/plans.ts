import { getJson } from './api.ts';
import { byId, element } from './dom.ts';
import { brl, toCents } from './format.ts';

export type PlanOption = { id: string; name: string; number: number; value: number; payment_method: string };
export type Plans = Partial<Record<'credit_card' | 'pix' | 'bank_slip', PlanOption[]>>;

const METHOD_LABELS: Record<string, string> = { credit_card: 'Cartão de crédito', pix: 'Pix', bank_slip: 'Boleto bancário' };

export async function fetchPlans(query: string): Promise<Plans | undefined> {
  const answer = await getJson(`/api/v1/payment_plans?${query}`);
  return answer.status === 200 ? (answer.body as Plans) : undefined;
}

export const selectedMethod = (): string | undefined => document.querySelector<HTMLInputElement>('input[name=method]:checked')?.value;

/** One radio per configured method, keeping the buyer's choice when it is still offered. */
export function renderMethods(plans: Plans, onChange: () => void): void {
  const previous = selectedMethod();
  const methods = (['credit_card', 'pix', 'bank_slip'] as const).filter((method) => plans[method]?.length);
  const container = byId('method-options')!;
  container.replaceChildren(
    ...methods.map((method, index) => {
      const wrapper = element('div', { class: 'choice' });
      const radio = element('input', { type: 'radio', name: 'method', id: `method-${method}`, value: method });
      radio.checked = previous ? previous === method : index === 0;
      radio.addEventListener('change', onChange);
      wrapper.append(radio, element('label', { for: `method-${method}` }, METHOD_LABELS[method]!));
      return wrapper;
    }),
  );
  if (!methods.length) container.replaceChildren(element('p', { class: 'error' }, 'Nenhuma forma de pagamento disponível.'));
}

const optionLabel = (option: PlanOption) =>
  option.number === 1 ? `À vista: ${brl(toCents(option.value))}` : `${option.number}x de ${brl(toCents(option.value))} (total ${brl(toCents(option.value) * option.number)})`;

export function renderInstallments(selectId: string, options: PlanOption[]): void {
  const select = byId<HTMLSelectElement>(selectId);
  if (!select) return;
  const previous = select.value;
  select.replaceChildren(...options.map((option) => element('option', { value: option.id }, optionLabel(option))));
  if (options.some((option) => option.id === previous)) select.value = previous;
}

/** The amount charged for an option: per-installment value times the count. */
export const optionTotalCents = (option: PlanOption) => toCents(option.value) * option.number;
