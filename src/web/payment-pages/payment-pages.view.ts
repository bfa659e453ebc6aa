import type { HostedPayment } from './payment-pages.repo.ts';

export type PaymentDisplayStatus = 'Aguardando pagamento' | 'Pago' | 'Expirado' | 'Estornado' | 'Cancelado';

/**
 * The status a buyer reads. An unpaid Pix past its expiry is "Expirado" even before the gateway's event
 * arrives; a lapsed Pix or boleto is `cancelled` in the payment states, so that is "Expirado" too.
 */
export function displayStatus(
  payment: Pick<HostedPayment, 'status' | 'pix_expires_at'>,
  now: Date,
): PaymentDisplayStatus {
  switch (payment.status) {
    case 'pending':
    case 'waiting_payment':
      return payment.pix_expires_at && payment.pix_expires_at.getTime() <= now.getTime()
        ? 'Expirado'
        : 'Aguardando pagamento';
    case 'paid':
    case 'partially_refunded':
      return 'Pago';
    case 'refunded':
      return 'Estornado';
    case 'cancelled':
    case 'failed':
      return 'Expirado';
    default:
      return 'Cancelado';
  }
}

const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** "30/06/2026, 14:30 BRT": the instant on the company's wall clock, with the zone named. */
export function formatDateTimeIn(instant: Date, timeZone: string): string {
  const options = {
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  } as const;
  try {
    return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone }).format(instant);
  } catch {
    return new Intl.DateTimeFormat('pt-BR', { ...options, timeZone: DEFAULT_TIME_ZONE }).format(instant);
  }
}

/** The beneficiary as the buyer knows it: the legal name when kept, else the trading name. */
export function beneficiaryName(payment: Pick<HostedPayment, 'company_legal_name' | 'company_name'>): string {
  return payment.company_legal_name?.trim() || payment.company_name;
}
