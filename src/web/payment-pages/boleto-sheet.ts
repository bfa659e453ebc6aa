import { readBancoDoBrasilFreeField } from '../../brazil/boleto-free-field.ts';
import type { BoletoPdfInput } from '../../brazil/render/index.ts';
import { formatBrl } from '../../brazil/render/boleto-pdf-text.ts';
import { todayInTimeZone } from '../../modules/pricing/index.ts';
import type { HostedPayment } from './payment-pages.repo.ts';
import { beneficiaryName } from './payment-pages.view.ts';
import { orderNumber } from '../checkout/payment-receipt.ts';

export type IssuedBoleto = HostedPayment & {
  boleto_barcode: string;
  boleto_digitable_line: string;
  boleto_due_date: string;
};

const BANK_NAMES: Record<string, string> = { '001': 'Banco do Brasil' };
export const UNIDENTIFIED_PAYER = 'Pagador não identificado';
/** Duplicata mercantil, not accepted by the payer beforehand: what an online sale's boleto is. */
const DOCUMENT_KIND = 'DM';
const ACCEPTANCE = 'N';

const percent = (value: number) => `${value.toLocaleString('pt-BR', { maximumFractionDigits: 4 })}%`;

/** The fine and late-interest terms of the payment's plan, as the instructions print them. */
export function boletoInstructions(
  terms: Pick<
    HostedPayment,
    'fine_type' | 'fine_cents' | 'fine_tax' | 'plan_late_interest_cents' | 'late_interest_tax'
  >,
): string[] {
  const fine =
    terms.fine_type === 'fixed'
      ? (terms.fine_cents ?? 0) > 0
        ? `multa de ${formatBrl(terms.fine_cents!)}`
        : undefined
      : (terms.fine_tax ?? 0) > 0
        ? `multa de ${percent(terms.fine_tax!)} sobre o valor`
        : undefined;
  const interest = [
    (terms.late_interest_tax ?? 0) > 0
      ? `juros de mora de ${percent(terms.late_interest_tax!)} ao mês (pro rata por dia de atraso)`
      : undefined,
    (terms.plan_late_interest_cents ?? 0) > 0
      ? `juros fixos de ${formatBrl(terms.plan_late_interest_cents!)}`
      : undefined,
  ].filter(Boolean);
  const charges = [fine, ...interest].filter(Boolean);
  return [
    charges.length
      ? `Após o vencimento, cobrar ${charges.join(' e ')}.`
      : 'Não cobrar multa nem juros após o vencimento.',
    'Pague também com o Pix: o QR Code deste boleto quita o mesmo valor.',
  ];
}

/**
 * Every field of the ficha de compensação and the recibo do pagador. The barcode's value is what the buyer
 * pays; on an overdue charge it includes the fine and late interest the payment was priced with (the
 * payment's `interest_cents`), printed apart as "(+) Juros/Multa" beside the document's own value.
 */
export function boletoSheet(payment: IssuedBoleto): BoletoPdfInput {
  const address = [
    payment.payer_street,
    payment.payer_number,
    payment.payer_city,
    payment.payer_state,
    payment.payer_zipcode,
  ]
    .filter(Boolean)
    .join(', ');
  const bank = readBancoDoBrasilFreeField(payment.boleto_barcode);
  const issued = todayInTimeZone(payment.created_at, payment.time_zone);
  const instructions = boletoInstructions(payment);
  return {
    bankName: BANK_NAMES[payment.boleto_barcode.slice(0, 3)],
    beneficiary: { name: beneficiaryName(payment), taxId: payment.company_document ?? undefined },
    payer: {
      name: payment.payer_name ?? UNIDENTIFIED_PAYER,
      taxId: payment.payer_document ?? undefined,
      address: address || undefined,
    },
    amountCents: payment.amount_cents,
    surchargeCents: Math.max(0, Math.min(payment.interest_cents, payment.amount_cents)),
    dueDate: payment.boleto_due_date,
    digitableLine: payment.boleto_digitable_line,
    barcode: payment.boleto_barcode,
    documentNumber: orderNumber(payment.order_uid),
    issueDate: issued,
    processingDate: issued,
    documentKind: DOCUMENT_KIND,
    acceptance: ACCEPTANCE,
    ...(bank ? { ourNumber: bank.ourNumber, carteira: bank.carteira } : {}),
    // The agency and account the gateway's bank names; without them, the agreement the barcode carries.
    ...(payment.boleto_beneficiary_code || bank
      ? { beneficiaryCode: payment.boleto_beneficiary_code ?? bank!.agreement }
      : {}),
    instructions: payment.pix_code ? instructions : instructions.slice(0, -1),
    ...(payment.pix_code ? { pixCode: payment.pix_code } : {}),
  };
}
