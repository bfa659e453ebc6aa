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

/**
 * The option's name: one payment is `{plan name} - R$ 103,50`; several are `3x de R$ 34,50`, with
 * ` sem juros` when the count carries neither interest nor fixed fee. The amount shown is the first
 * (largest) installment.
 */
export function installmentOptionName(option: {
  planName: string;
  installments: number;
  firstInstallmentCents: number;
  interestFree: boolean;
  currency?: string;
}): string {
  const amount = formatMoney(option.firstInstallmentCents, option.currency);
  if (option.installments === 1) return `${option.planName} - ${amount}`;
  return `${option.installments}x de ${amount}${option.interestFree ? ' sem juros' : ''}`;
}
