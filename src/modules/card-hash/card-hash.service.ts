import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { GatewayRequestError } from '../../gateways/errors.ts';
import { CARD_HASH_KEY_LIFETIME_MS } from '../../gateways/gateway-c/index.ts';
import { GatewayUnavailableError, type GatewayAccount } from '../../gateways/port.ts';
import { gatewayCClient } from '../../gateways/registry.ts';
import { AppError, businessRule, validationFailed } from '../../http/errors.ts';
import { unseal } from '../../lib/crypto.ts';
import { chargeBranding, type ChargeRow } from '../charges/index.ts';
import { findGatewayCIntegration, findKey, markKeyConsumed, saveIssuedKey } from './card-hash.repo.ts';

/** Where a key is asked for: the owning account and company, and the gateway the context pays with. */
export type CardHashContext = { accountId: string; companyId: number; gateway: string; label: string };
export type CardHashKeyView = { id: number; public_key: string; date_created: string };
export type IssueDependencies = { db: Kysely<DB>; masterKey: Buffer; gatewayUrl: string | undefined; now: Date };

/** A charge pays with the gateway its page shows (the charge branding rule of the charges module). */
export async function chargeGateway(db: Kysely<DB>, charge: ChargeRow): Promise<string> {
  return (await chargeBranding(db, charge)).gateway;
}

/**
 * Asks gateway_c for a fresh key with the company's encryption key, records it (single use, five
 * minutes) and returns it as the buyer's browser needs it.
 */
export async function issueCardHashKey(deps: IssueDependencies, context: CardHashContext): Promise<CardHashKeyView> {
  if (context.gateway !== 'gateway_c')
    throw businessRule(`card hash keys exist only for gateway_c; this ${context.label} uses ${context.gateway}`);
  const integration = await findGatewayCIntegration(deps.db, context.accountId, context.companyId);
  if (!integration?.public_key || !integration.secret_encrypted)
    throw businessRule('the company has no enabled gateway_c integration with an encryption key and an api key');
  if (!deps.gatewayUrl) throw new AppError('service_unavailable', 'gateway_c is not reachable');
  const account: GatewayAccount = {
    baseUrl: deps.gatewayUrl,
    publicKey: integration.public_key,
    secretKey: unseal(deps.masterKey, integration.secret_encrypted),
  };
  const key = await gatewayCClient().createCardHashKey(account).catch(gatewayFailure);
  await saveIssuedKey(deps.db, {
    accountId: context.accountId,
    companyId: context.companyId,
    gatewayKeyId: key.id,
    publicKeyPem: key.publicKey,
    createdAt: deps.now,
    expiresAt: new Date(deps.now.getTime() + CARD_HASH_KEY_LIFETIME_MS),
  });
  return { id: key.id, public_key: key.publicKey, date_created: key.dateCreated.toISOString() };
}

function gatewayFailure(error: unknown): never {
  if (error instanceof GatewayUnavailableError) {
    throw error.kind === 'timeout'
      ? new AppError('gateway_timeout', 'gateway_c did not answer in time')
      : new AppError('gateway_error', 'gateway_c failed to issue a card hash key');
  }
  if (error instanceof GatewayRequestError && error.code === 'authentication_failed')
    throw businessRule('gateway_c refused the company’s encryption key');
  if (error instanceof GatewayRequestError)
    throw new AppError('gateway_error', 'gateway_c refused to issue a card hash key');
  throw error;
}

const CARD_HASH = /^(\d{1,15})_[A-Za-z0-9+/]+={0,2}$/;

/**
 * Spends the key a card hash was made with, inside the pay flow's transaction: it must have been issued
 * here for this account and company, be unexpired and unused. The conditional update makes it single-use
 * even when two payments race with the same hash.
 */
export async function consumeCardHashKey(
  trx: Kysely<DB>,
  { accountId, companyId, token, now }: { accountId: string; companyId: number; token: string; now: Date },
): Promise<void> {
  const match = CARD_HASH.exec(token);
  if (!match) throw validationFailed('The card token is not a gateway_c card hash (<key id>_<base64>)');
  const ref = { accountId, companyId, gatewayKeyId: Number(match[1]) };
  if (await markKeyConsumed(trx, ref, now)) return;
  const key = await findKey(trx, ref);
  if (!key)
    throw businessRule('The card hash was made with a key this company did not issue: ask for a new card hash key');
  if (key.consumed_at) throw businessRule('The card hash key was already used: ask for a new card hash key');
  throw businessRule('The card hash key has expired: ask for a new card hash key');
}
