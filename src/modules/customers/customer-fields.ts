import { isValidTaxId } from '../../brazil/documents.ts';
import { validationFailed, type FieldError } from '../../http/errors.ts';
import { centsFromBody } from '../../http/money-input.ts';
import type { CustomerColumns } from './customers.repo.ts';

/** The customer fields a request may send (POST /customers, the customer of POST /orders): the columns, with money in major units. */
export type CustomerInput = Omit<CustomerColumns, 'minimum_retention_cents'> & { minimum_retention_value?: number };

/** Punctuation of a formatted CPF or CNPJ, ignored before the check digits are verified. */
const TAX_ID_PUNCTUATION = /[.\-/\s]/g;

/**
 * The rules a schema cannot express: a CPF or CNPJ with valid check digits (any text when `foreign`).
 * Returns the normalised identification.
 */
export function checkedIdentification(
  identification: string | undefined,
  foreign: boolean | undefined,
  field: string,
): string | undefined {
  if (identification === undefined) return undefined;
  if (foreign) return identification.trim();
  const normalised = identification.replace(TAX_ID_PUNCTUATION, '').toUpperCase();
  if (!isValidTaxId(normalised)) {
    const detail: FieldError = {
      field,
      message: 'must be a CPF (11 digits) or CNPJ (14 characters) with valid check digits',
    };
    throw validationFailed('identification is not a valid CPF or CNPJ', [detail]);
  }
  return normalised;
}

/**
 * Request fields to customer columns: email lower-cased, state upper-cased, money in cents.
 * `path` locates the customer in the body ('' for POST /customers, 'customer/' inside an order).
 */
export function customerColumns(input: CustomerInput, path: string): CustomerColumns {
  const columns: CustomerColumns = {
    email: input.email.trim().toLowerCase(),
    name: input.name,
    phone: input.phone,
    identification: checkedIdentification(input.identification, input.foreign, `body/${path}identification`),
    foreign: input.foreign,
    street: input.street,
    neighborhood: input.neighborhood,
    number: input.number,
    complement: input.complement,
    zipcode: input.zipcode,
    city: input.city,
    state: input.state?.toUpperCase(),
    social_reason: input.social_reason,
    state_inscription: input.state_inscription,
    municipal_inscription: input.municipal_inscription,
    tags: input.tags,
    list_ids: input.list_ids,
    carrier: input.carrier,
    url: input.url,
    minimum_retention_cents:
      input.minimum_retention_value === undefined
        ? undefined
        : centsFromBody(input.minimum_retention_value, `${path}minimum_retention_value`),
    auxiliary_emails: input.auxiliary_emails?.map((email) => email.trim().toLowerCase()),
    meta: input.meta,
  };
  return columns;
}
