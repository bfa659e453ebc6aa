import { buildBoleto, boletoFreeField } from '../../brazil/boleto.ts';
import { buildPixBrCode, pixTxid } from '../../brazil/pix.ts';
import type { SandboxContext } from './context.ts';
import { SandboxError, type SandboxRouter } from './router.ts';
import type { SandboxBoleto, SandboxPayer, SandboxPix } from './store.ts';

export const SANDBOX_MERCHANT = { name: 'Loja Sandbox', city: 'SAO PAULO' };
export const SANDBOX_BOLETO_BANK = '001';
export const SANDBOX_BOLETO_CARTEIRA = '17';
// A Banco do Brasil agreement ("convênio") per gateway, so their boletos never share an our-number.
const AGREEMENTS = { gateway_a: '1000001', gateway_b: '2000002', gateway_c: '3000003' } as const;
// The Banco do Brasil agency and account each gateway's boletos pay into, as the slip prints them (agência-DV /
// conta-DV, both check digits by the bank's modulo 11).
const BENEFICIARY_CODES = {
  gateway_a: '3064-3 / 00012345-5',
  gateway_b: '1234-3 / 00067890-2',
  gateway_c: '0452-9 / 00024680-8',
} as const;

/**
 * A dynamic BR Code whose location is served by this sandbox (`GET /<gateway>/qr/<txid>`). The code
 * carries no amount (field 54): for a dynamic code the location is the source of truth for amount and txid.
 */
export function issuePix(context: SandboxContext, chargeId: string, expiresAt: Date): SandboxPix {
  const txid = pixTxid(`${context.gateway}:${chargeId}`);
  const brCode = buildPixBrCode({
    locationUrl: `${context.pixLocationHost}/${context.gateway}/qr/${txid}`,
    merchantName: SANDBOX_MERCHANT.name,
    merchantCity: SANDBOX_MERCHANT.city,
    txid,
  });
  return { txid, brCode, expiresAt, locationUrl: `${context.baseUrl()}/qr/${txid}` };
}

/** A Banco do Brasil boleto (bank 001) with the sandbox's own agreement and the next our-number. */
export function issueBoleto(
  context: SandboxContext,
  chargeId: string,
  amountCents: number,
  dueDate: string,
  payer: SandboxPayer,
): SandboxBoleto {
  const ourNumber = String(context.store.nextSequence());
  const freeField = boletoFreeField({
    agreement: AGREEMENTS[context.gateway],
    ourNumber,
    carteira: SANDBOX_BOLETO_CARTEIRA,
  });
  try {
    const { barcode, digitableLine } = buildBoleto({ bankCode: SANDBOX_BOLETO_BANK, dueDate, amountCents, freeField });
    const pix = issuePix(context, chargeId, new Date(`${dueDate}T23:59:59-03:00`));
    const url = `${context.baseUrl()}/boletos/${ourNumber}`;
    return {
      barcode,
      digitableLine,
      dueDate,
      ourNumber,
      url,
      payer,
      beneficiaryCode: BENEFICIARY_CODES[context.gateway],
      pix,
    };
  } catch (error) {
    throw new SandboxError(
      400,
      'invalid_due_date',
      error instanceof RangeError ? error.message : 'The due date is invalid',
      'due_date',
    );
  }
}

/** The documents a buyer opens: the Pix location payload and the boleto voucher, both as JSON. */
export function addPaymentSlipRoutes(router: SandboxRouter, context: SandboxContext): void {
  router.add('GET', '/qr/:txid', ({ params }) => {
    const charge = [...context.store.charges.values()].find(
      (candidate) => (candidate.pix ?? candidate.boleto?.pix)?.txid === params.txid,
    );
    const pix = charge?.pix ?? charge?.boleto?.pix;
    if (!charge || !pix) throw new SandboxError(404, 'not_found', 'No pix charge has this location');
    const status =
      charge.state === 'waiting_payment' ? 'ATIVA' : charge.state === 'paid' ? 'CONCLUIDA' : 'REMOVIDA_PELO_PSP';
    const expiration = Math.max(0, Math.round((pix.expiresAt.getTime() - charge.createdAt.getTime()) / 1000));
    return {
      status: 200,
      body: {
        txid: pix.txid,
        revisao: 0,
        status,
        calendario: {
          criacao: charge.createdAt.toISOString(),
          apresentacao: context.now().toISOString(),
          expiracao: expiration,
        },
        valor: { original: (charge.amountCents / 100).toFixed(2) },
        solicitacaoPagador: charge.description,
      },
    };
  });
  router.add('GET', '/boletos/:ourNumber', ({ params }) => {
    const charge = [...context.store.charges.values()].find(
      (candidate) => candidate.boleto?.ourNumber === params.ourNumber,
    );
    if (!charge?.boleto) throw new SandboxError(404, 'not_found', 'No boleto has this number');
    const { barcode, digitableLine, dueDate, payer } = charge.boleto;
    return {
      status: 200,
      body: {
        bank: SANDBOX_BOLETO_BANK,
        barcode,
        digitable_line: digitableLine,
        due_date: dueDate,
        amount: charge.amountCents,
        status: charge.state,
        payer,
        beneficiary_code: charge.boleto.beneficiaryCode,
      },
    };
  });
}
