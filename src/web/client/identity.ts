import { isValidTaxId } from '../../brazil/documents.ts';
import { byId, valueOf, type FieldError } from './dom.ts';

/** A CPF or CNPJ as typed, without its punctuation; the CNPJ's letters upper-cased. */
export const bareTaxId = (value: string): string => value.replace(/[^0-9A-Za-z]/g, '').toUpperCase();

/**
 * The mask while typing: 000.000.000-00 up to 11 digits, else the CNPJ's 00.000.000/0000-00 (whose first 12
 * characters may be letters). At most 14 characters are kept.
 */
export function maskTaxId(value: string): string {
  const bare = bareTaxId(value).slice(0, 14);
  const cpf = bare.length <= 11 && /^[0-9]*$/.test(bare);
  const cuts = cpf ? [3, 6, 9] : [2, 5, 8, 12];
  const marks = cpf ? ['.', '.', '-'] : ['.', '.', '/', '-'];
  let masked = '';
  for (const [index, char] of [...bare].entries()) {
    const cut = cuts.indexOf(index);
    if (cut >= 0) masked += marks[cut];
    masked += char;
  }
  return masked;
}

/** The methods that need the payer's identity on this page (`data-asks-identity`); a boleto always does. */
const identityMethods = (form: HTMLFormElement): string[] => [
  'bank_slip',
  ...(form.dataset.asksIdentity ?? '').split(' ').filter(Boolean),
];

/** Whether the chosen method needs the payer's identity on this page. */
export function needsIdentity(form: HTMLFormElement, method: string | undefined): boolean {
  return method !== undefined && identityMethods(form).includes(method);
}

/** Shows the payer's fields when the method needs them (every method: they are shown from the start). */
export function showIdentity(form: HTMLFormElement, method: string | undefined): void {
  const fieldset = byId('identity');
  const everyMethod = ['credit_card', 'pix', 'bank_slip'].every((name) => identityMethods(form).includes(name));
  if (fieldset) fieldset.hidden = !everyMethod && !needsIdentity(form, method);
}

/** Masks the CPF/CNPJ as it is typed. */
export function wireIdentityInputs(): void {
  const input = byId<HTMLInputElement>('customer-document');
  input?.addEventListener('input', () => {
    input.value = maskTaxId(input.value);
  });
}

/**
 * The payer's name and CPF/CNPJ for the pay body, checked as the service checks them (check digits, the
 * alphanumeric CNPJ); the fields the page did not render are the customer's own and not sent.
 */
export function readIdentity(form: HTMLFormElement, method: string | undefined, errors: FieldError[]) {
  if (!needsIdentity(form, method)) return {};
  const body: { customer_name?: string; customer_identification?: string } = {};
  if (byId('customer-name')) {
    const name = valueOf('customer-name').replace(/\s+/g, ' ');
    if (name.length < 3) errors.push({ field: 'customer-name', message: 'Informe o nome completo do pagador.' });
    else body.customer_name = name;
  }
  if (byId('customer-document')) {
    const taxId = bareTaxId(valueOf('customer-document'));
    if (!isValidTaxId(taxId))
      errors.push({
        field: 'customer-document',
        message: taxId.length
          ? 'CPF ou CNPJ inválido: confira os números digitados.'
          : 'Informe o CPF ou CNPJ do pagador.',
      });
    else body.customer_identification = taxId;
  }
  return body;
}
