/** Calls to this service's public API (same origin) and to a gateway's tokenizer. */

// The body's shape is the route's; each caller reads the fields it knows.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiAnswer = { status: number; body: any };

export async function call(url: string, init: RequestInit = {}): Promise<ApiAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, credentials: 'omit' });
  } catch {
    return { status: 0, body: undefined };
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

export const getJson = (path: string) => call(path, { headers: { accept: 'application/json' } });

export const postJson = (path: string, payload: unknown) =>
  call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(payload),
  });

const COUPON_MESSAGES: Record<string, string> = {
  'Coupon not found': 'Cupom não encontrado.',
  'Coupon has expired': 'Este cupom expirou.',
  'Coupon has reached its usage limit': 'Este cupom já foi usado o número máximo de vezes.',
  'Coupon does not apply to these products': 'Este cupom não vale para estes produtos.',
};

export function couponMessage(text: unknown): string {
  return (typeof text === 'string' && COUPON_MESSAGES[text]) || 'Não foi possível aplicar este cupom.';
}

const DECLINES: Record<string, string> = {
  declined: 'O cartão foi recusado pelo banco emissor. Confira os dados ou use outro cartão.',
  insufficient_funds: 'O cartão foi recusado por saldo ou limite insuficiente. Use outro cartão.',
  invalid_token: 'Os dados do cartão expiraram. Digite-os novamente.',
};

export const declineMessage = (code: string): string => DECLINES[code] ?? DECLINES.declined!;

/**
 * What the page tells the buyer after an error answer of a pay endpoint: a Portuguese message and the field
 * it concerns. `pending`: the gateway's answer is unknown (504), the card may have been charged, so the page
 * must not let the buyer pay again. The API's own `message` (English, for developers) is never shown.
 */
/** `requote`: the price moved since the page quoted it; the page fetches the plans again before the buyer retries. */
export type PayProblem = { field?: string; message: string; pending?: true; requote?: true };

const BY_STATUS: Record<number, string> = {
  0: 'Sem conexão. Verifique a internet e tente de novo.',
  403: 'Este pagamento não pode ser feito a partir deste endereço.',
  404: 'Este link de pagamento não existe mais. Peça um novo link a quem fez a cobrança.',
  429: 'Muitas tentativas em pouco tempo. Aguarde um instante e tente de novo.',
  // gateway_error: the gateway refused to take the payment, so nothing was charged.
  502: 'A operadora de pagamento não respondeu. Nada foi cobrado; tente de novo em instantes.',
};

export const PENDING_MESSAGE =
  'A operadora de pagamento ainda não confirmou este pagamento: ele pode ter sido aprovado. Não pague de novo; você receberá a confirmação por e-mail.';

export function payError(answer: ApiAnswer): PayProblem {
  const body = answer.body ?? {};
  const detail = Array.isArray(body.details) ? body.details[0] : undefined;
  const field = typeof detail?.field === 'string' ? detail.field.replace(/^body\//, '') : undefined;
  if (answer.status === 504 || body.code === 'gateway_timeout') return { message: PENDING_MESSAGE, pending: true };
  // Another attempt of this charge or cart is at the gateway: paying again could charge twice.
  if (body.code === 'payment_in_progress') return { message: PENDING_MESSAGE, pending: true };
  if (answer.status === 409 && field === 'expected_total')
    return {
      message: 'O valor a pagar mudou desde que esta página foi aberta. Confira o novo total e toque em Pagar de novo.',
      requote: true,
    };
  if (answer.status === 409)
    return { field: 'schedule-date', message: 'Este horário acabou de ser reservado por outra pessoa. Escolha outro.' };
  const known = BY_STATUS[answer.status];
  if (known) return { message: known };
  if (answer.status >= 500)
    return { message: 'Não foi possível concluir o pagamento agora. Tente de novo em instantes.' };
  if (field && /^credit_card_[01]_token$|^confirmation_token_id$/.test(field)) {
    const card = field.startsWith('credit_card_1') ? 'card1' : 'card0';
    return { field: `${card}-number`, message: declineMessage(String(detail.message)) };
  }
  if (body.code === 'card_number_refused')
    return { field: 'card0-number', message: 'Os dados do cartão não podem ser enviados assim. Digite-os novamente.' };
  if (field === 'customer_email') return { field: 'customer-email', message: 'Informe um e-mail válido.' };
  if (field === 'customer_phone')
    return { field: 'customer-phone', message: 'Informe o celular com DDD, somente números.' };
  if (field === 'coupon' || /^Coupon/.test(String(body.message)))
    return { field: 'coupon', message: couponMessage(body.message) };
  if (field === 'scheduled_at') return { field: 'schedule-date', message: 'Escolha um horário disponível.' };
  if (body.code === 'business_rule_violation' && !field)
    return {
      message: 'Este pagamento não pode ser concluído agora. Recarregue a página para ver a situação do pedido.',
    };
  return { message: 'Não foi possível concluir o pagamento. Confira os dados e tente de novo.' };
}
