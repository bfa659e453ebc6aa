/**
 * Customer-facing labels of installment options, in pt-BR: `R$ 1.234,50` (dot for thousands, comma
 * for cents; other currencies are prefixed with their ISO code).
 */
export function formatMoney(cents: number, currency = 'BRL'): string {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const fraction = String(cents % 100).padStart(2, '0');
  return `${currency.trim().toUpperCase() === 'BRL' ? 'R$' : currency.trim().toUpperCase()} ${whole},${fraction}`;
}

export type LabelledOption = {
  installments: number;
  installmentCents: number;
  /** installmentCents × installments. */
  totalCents: number;
  /** The total before interest and fee: equal to `totalCents` means "sem juros". */
  baseCents: number;
};

/**
 * Several installments: `3x de R$ 34,50 sem juros (total R$ 103,50)`, or `com juros` when the total is
 * above the base. One payment: the amount, followed by ` com juros` when it carries interest or a fee.
 */
export function installmentsPhrase(option: LabelledOption, money: (cents: number) => string = formatMoney): string {
  const interest = option.totalCents === option.baseCents ? 'sem juros' : 'com juros';
  if (option.installments === 1) return `${money(option.totalCents)}${interest === 'com juros' ? ' com juros' : ''}`;
  return `${option.installments}x de ${money(option.installmentCents)} ${interest} (total ${money(option.totalCents)})`;
}

/** The option's name: one payment is `{plan name} - R$ 103,50`; several are the installments phrase. */
export function installmentOptionName(option: LabelledOption & { planName: string; currency?: string }): string {
  const phrase = installmentsPhrase(option, (cents) => formatMoney(cents, option.currency));
  return option.installments === 1 ? `${option.planName} - ${phrase}` : phrase;
}
