import { getJson } from './api.ts';
import { byId, element } from './dom.ts';
import { installmentsPhrase, installmentTotal } from '../../modules/pricing/index.ts';
import { brl, toCents } from './format.ts';

/** One option of GET /payment_plans; `fixed` and `percentage` are its tax row, already in `value`. */
export type PlanOption = {
  id: string;
  name: string;
  number: number;
  value: number;
  payment_method: string;
  fixed: number;
  percentage: number;
};
export type Plans = Partial<Record<'credit_card' | 'pix' | 'bank_slip', PlanOption[]>>;

const METHOD_LABELS: Record<string, string> = {
  credit_card: 'Cartão de crédito',
  pix: 'Pix',
  bank_slip: 'Boleto bancário',
};

export async function fetchPlans(query: string): Promise<Plans | undefined> {
  const answer = await getJson(`/api/v1/payment_plans?${query}`);
  return answer.status === 200 ? (answer.body as Plans) : undefined;
}

export const selectedMethod = (): string | undefined =>
  document.querySelector<HTMLInputElement>('input[name=method]:checked')?.value;

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
  if (!methods.length)
    container.replaceChildren(element('p', { class: 'error' }, 'Nenhuma forma de pagamento disponível.'));
}

/** What the option charges in all: every installment is `value`, so the total is value × number, exactly. */
export const optionTotalCents = (option: PlanOption): number => toCents(option.value) * option.number;

/** What a lump sum of this option's tax row charges on `baseCents`, by the service's own pricing rule. */
const oneTimeTotalCents = (option: PlanOption, baseCents: number): number =>
  installmentTotal(baseCents, { fixedCents: toCents(option.fixed), percentage: option.percentage });

/**
 * The total before interest and fees that a 1× option was quoted on: the one base whose 1× total is its
 * value (the total grows by at least a cent per cent of base, so there is at most one).
 */
export function baseOfOneTimeOption(option: PlanOption): number | undefined {
  const charged = toCents(option.value);
  const estimate = Math.round((charged - toCents(option.fixed)) / (1 + option.percentage / 100));
  for (let base = Math.max(0, estimate - 2); base <= estimate + 2; base++)
    if (oneTimeTotalCents(option, base) === charged) return base;
  return undefined;
}

/** `À vista: R$ 49,90`, or `3x de R$ 34,50 sem juros (total R$ 103,50)`: "sem juros" when the total is the base. */
export function optionLabel(option: PlanOption, baseCents: number): string {
  const phrase = installmentsPhrase(
    {
      installments: option.number,
      installmentCents: toCents(option.value),
      totalCents: optionTotalCents(option),
      baseCents,
    },
    brl,
  );
  return option.number === 1 ? `À vista: ${phrase}` : phrase;
}

/** The options of one card, labelled with what they charge on `baseCents` (the whole total or the card's share). */
export function renderInstallments(selectId: string, options: PlanOption[], baseCents: number): void {
  const select = byId<HTMLSelectElement>(selectId);
  if (!select) return;
  const previous = select.value;
  select.replaceChildren(
    ...options.map((option) => element('option', { value: option.id }, optionLabel(option, baseCents))),
  );
  if (options.some((option) => option.id === previous)) select.value = previous;
}
