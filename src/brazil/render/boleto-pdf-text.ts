/** pt-BR display formats printed on the boleto. */

/** 102656 → "R$ 1.026,56" (plain space, so the PDF text is searchable and encodable in WinAnsi). */
export function formatBrl(amountCents: number): string {
  const reais = Math.floor(amountCents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `R$ ${reais},${String(amountCents % 100).padStart(2, '0')}`;
}

/** '2026-06-30' → '30/06/2026'. */
export function formatBrDate(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day}/${month}/${year}`;
}

/** CPF as 000.000.000-00 and CNPJ as 00.000.000/0000-00; anything else as given. */
export function formatTaxId(taxId: string): string {
  if (/^\d{11}$/.test(taxId)) return taxId.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
  if (/^[0-9A-Z]{12}\d{2}$/.test(taxId)) return taxId.replace(/^(.{2})(.{3})(.{3})(.{4})(\d{2})$/, '$1.$2.$3/$4-$5');
  return taxId;
}
