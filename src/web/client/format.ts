const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

export const brl = (cents: number): string => BRL.format(cents / 100);

export const toCents = (major: number): number => Math.round(major * 100);

/** "1.234,56", "40", "40.5" → cents; undefined when it is not an amount. */
export function parseAmount(text: string): number | undefined {
  const clean = text.replace(/[R$\s]/g, '');
  if (!/^\d{1,3}(\.?\d{3})*(,\d{1,2})?$|^\d+([.,]\d{1,2})?$/.test(clean)) return undefined;
  const normal = clean.includes(',') ? clean.replace(/\./g, '').replace(',', '.') : clean;
  return Math.round(Number(normal) * 100);
}

export const digits = (text: string): string => text.replace(/\D/g, '');

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let index = 0; index < number.length; index += 1) {
    let digit = Number(number[number.length - 1 - index]);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}
