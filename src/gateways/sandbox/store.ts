import { randomBytes } from 'node:crypto';
import type { SandboxReply } from './router.ts';
import type { TestCard } from './test-cards.ts';

export type ChargeMethod = 'credit_card' | 'pix' | 'boleto';
/** The life of a charge, common to the three sandboxes; refunds and disputes are recorded beside it. */
export type ChargeState = 'waiting_payment' | 'paid' | 'failed' | 'cancelled' | 'expired';

/** `reference`: the merchant's own reference of the refund, by which it can look the refund up later. */
export type SandboxRefund = { id: string; amountCents: number; createdAt: Date; reference: string | null };
export type SandboxPix = { txid: string; brCode: string; expiresAt: Date; locationUrl: string };
/** The payer a boleto is registered for, as the merchant sent it. */
export type SandboxPayer = { name: string | null; document: string | null };
export type SandboxBoleto = {
  barcode: string;
  digitableLine: string;
  dueDate: string;
  ourNumber: string;
  url: string;
  payer: SandboxPayer;
  /** The agência/código do beneficiário the bank prints: the account the boleto pays into. */
  beneficiaryCode: string;
  /** Boleto híbrido: a Pix charge of the same amount that pays it too, valid until the end of the due date. */
  pix: SandboxPix;
};
export type SandboxFailure = { code: 'declined' | 'insufficient_funds' | 'expired'; message: string };

export type SandboxCharge = {
  id: string;
  /** The secret key that created it: another key cannot see it. */
  owner: string;
  method: ChargeMethod;
  state: ChargeState;
  amountCents: number;
  installments: number;
  description: string;
  /** As the merchant sent it; `company_id` chooses the webhook target. */
  metadata: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
  paidAt: Date | null;
  cancelledAt: Date | null;
  failure: SandboxFailure | null;
  card: (TestCard & { savedMethodId: string | null }) | null;
  pix: SandboxPix | null;
  boleto: SandboxBoleto | null;
  refunds: SandboxRefund[];
  dispute: { id: string; amountCents: number; createdAt: Date } | null;
  /** Gateway-specific identifiers (order id, transaction id, latest charge id). */
  refs: Record<string, string>;
  /** How the next refund call of this charge behaves (the `next_refund` sandbox action); null: normally. */
  nextRefund: RefundBehaviour | null;
};

/**
 * `refuse` (a 4xx refusal), `error` (500), `timeout` (held, then 504, nothing refunded), `webhook_first` (refunded,
 * answered after its webhook's first delivery attempt), `late` (refunded and its webhook sent, the answer held, then 504).
 */
export const REFUND_BEHAVIOURS = ['refuse', 'error', 'timeout', 'webhook_first', 'late'] as const;
export type RefundBehaviour = (typeof REFUND_BEHAVIOURS)[number];

export type StoredToken = { card: TestCard; createdAt: Date; used: boolean };

/** One gateway's in-memory state: charges, single-use card tokens, saved cards and idempotent replies. */
export class SandboxStore {
  readonly charges = new Map<string, SandboxCharge>();
  readonly tokens = new Map<string, StoredToken>();
  readonly savedCards = new Map<string, { owner: string; card: TestCard }>();
  readonly #replies = new Map<string, Promise<SandboxReply>>();
  #sequence = 0;

  nextSequence(): number {
    this.#sequence += 1;
    return this.#sequence;
  }

  chargeOf(owner: string, id: string): SandboxCharge | undefined {
    const charge = this.charges.get(id);
    return charge?.owner === owner ? charge : undefined;
  }

  /** Runs `create` once per owner and key; a repeated key gets the first answer again (5xx are not kept). */
  async idempotent(owner: string, key: string | undefined, create: () => Promise<SandboxReply>): Promise<SandboxReply> {
    if (key === undefined || key === '') return create();
    const slot = `${owner}\n${key}`;
    const known = this.#replies.get(slot);
    if (known) return known;
    const reply = create();
    this.#replies.set(slot, reply);
    try {
      const settled = await reply;
      if (settled.status >= 500) this.#replies.delete(slot);
      return settled;
    } catch (error) {
      this.#replies.delete(slot);
      throw error;
    }
  }
}

/** An identifier in the gateway's style: `prefix` + 24 random hex digits. */
export function sandboxId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

export function refundedCents(charge: SandboxCharge): number {
  return charge.refunds.reduce((sum, refund) => sum + refund.amountCents, 0);
}

/** The metadata's company id, when it is a positive integer (where the sandbox sends webhooks). */
export function companyIdOf(charge: SandboxCharge): number | null {
  const raw = charge.metadata.company_id;
  return raw !== undefined && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}

/** Metadata values as text, the way the gateways store them. */
export function metadataFrom(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const metadata: Record<string, string> = {};
  for (const [key, item] of Object.entries(value).slice(0, 50)) {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')
      metadata[key] = String(item).slice(0, 500);
  }
  return metadata;
}
