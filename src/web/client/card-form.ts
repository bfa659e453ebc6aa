import creditCardType from 'credit-card-type';
import { byId, type FieldError } from './dom.ts';
import { digits, luhnValid } from './format.ts';

/** What the page needs of a card brand: its name, how its number is grouped, its lengths and its security code. */
export type CardBrand = { name: string; gaps: number[]; lengths: number[]; codeSize: number; codeName: string };

const DEFAULT_GAPS = [4, 8, 12];

/** The brand a card number's first digits name (Visa, Mastercard, Elo, Hipercard, Amex…), once one is certain. */
export function cardBrand(number: string): CardBrand | undefined {
  const clean = digits(number);
  if (!clean) return undefined;
  const [first, ...others] = creditCardType(clean);
  // "4" is already Visa, while "5" may still be several brands: name one only when the digits decide it.
  if (!first || (others.length && clean.length < 6)) return undefined;
  return {
    name: first.niceType,
    gaps: first.gaps,
    lengths: first.lengths,
    codeSize: first.code.size,
    codeName: first.code.name,
  };
}

/** "4111111111111111" → "4111 1111 1111 1111"; an Amex 4-6-5. */
export function groupCardNumber(number: string): string {
  const clean = digits(number).slice(0, 19);
  const gaps = cardBrand(clean)?.gaps ?? DEFAULT_GAPS;
  let grouped = '';
  for (let index = 0; index < clean.length; index++) grouped += (gaps.includes(index) ? ' ' : '') + clean[index];
  return grouped;
}

/** "1", "12", "123" → "1", "12/", "12/3" as the buyer types the expiry. */
export function formatExpiry(text: string, deleting: boolean): string {
  const clean = digits(text).slice(0, 4);
  if (clean.length < 2) return clean;
  if (clean.length === 2) return deleting ? clean : `${clean}/`;
  return `${clean.slice(0, 2)}/${clean.slice(2)}`;
}

export type Expiry = { month: number; year: number };

/** MM/AA (or MM/AAAA): invalid text, a month already past ("Cartão vencido"), or the month and full year. */
export function readExpiry(text: string, now: Date): Expiry | 'invalid' | 'expired' {
  const match = /^(\d{2})\s*\/\s*(\d{2}|\d{4})$/.exec(text.trim());
  if (!match) return 'invalid';
  const month = Number(match[1]);
  const year = Number(match[2]!.length === 2 ? `20${match[2]}` : match[2]);
  if (month < 1 || month > 12) return 'invalid';
  if (year * 12 + month < now.getFullYear() * 12 + now.getMonth() + 1) return 'expired';
  return { month, year };
}

/** The errors of one card's number, expiry and security code, by its brand's rules. */
export function cardErrors(
  prefix: string,
  card: { number: string; holder: string; expiry: string; cvv: string },
  now: Date,
): FieldError[] {
  const errors: FieldError[] = [];
  const brand = cardBrand(card.number);
  const number = digits(card.number);
  const lengthFits = brand ? brand.lengths.includes(number.length) : number.length >= 12 && number.length <= 19;
  if (!lengthFits || !luhnValid(number))
    errors.push({ field: `${prefix}-number`, message: 'Número do cartão inválido.' });
  if (!card.holder) errors.push({ field: `${prefix}-holder`, message: 'Informe o nome impresso no cartão.' });
  const expiry = readExpiry(card.expiry, now);
  if (expiry === 'expired')
    errors.push({ field: `${prefix}-expiry`, message: 'Cartão vencido: confira a validade ou use outro cartão.' });
  else if (expiry === 'invalid') errors.push({ field: `${prefix}-expiry`, message: 'Validade inválida: use MM/AA.' });
  const size = brand?.codeSize;
  if (size ? !new RegExp(`^\\d{${size}}$`).test(card.cvv) : !/^\d{3,4}$/.test(card.cvv))
    errors.push({
      field: `${prefix}-cvv`,
      message: size
        ? `O código de segurança deste cartão (${brand!.name}) tem ${size} dígitos.`
        : 'O código de segurança tem 3 ou 4 dígitos.',
    });
  return errors;
}

/** Groups the number as it is typed (keeping the caret after the same digit), names the brand, sizes the CVV. */
export function wireCardInputs(index: 0 | 1): void {
  const number = byId<HTMLInputElement>(`card${index}-number`);
  const expiry = byId<HTMLInputElement>(`card${index}-expiry`);
  const cvv = byId<HTMLInputElement>(`card${index}-cvv`);
  const brandLine = byId(`card${index}-brand`);
  if (!number || !expiry || !cvv) return;
  number.addEventListener('input', () => {
    const caretDigits = digits(number.value.slice(0, number.selectionStart ?? number.value.length)).length;
    number.value = groupCardNumber(number.value);
    let caret = 0;
    for (let seen = 0; caret < number.value.length && seen < caretDigits; caret++)
      if (/\d/.test(number.value[caret]!)) seen++;
    number.setSelectionRange(caret, caret);
    const brand = cardBrand(number.value);
    if (brandLine) brandLine.textContent = brand ? `Bandeira: ${brand.name}` : '';
    cvv.maxLength = brand?.codeSize ?? 4;
  });
  expiry.addEventListener('input', (event) => {
    const deleting = (event as InputEvent).inputType?.startsWith('delete') ?? false;
    expiry.value = formatExpiry(expiry.value, deleting);
  });
  cvv.addEventListener('input', () => {
    cvv.value = digits(cvv.value).slice(0, cvv.maxLength > 0 ? cvv.maxLength : 4);
  });
}
