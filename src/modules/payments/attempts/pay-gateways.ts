import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { AppError, businessRule } from '../../../http/errors.ts';
import type { GatewayAccount, GatewayName, PaymentGateway } from '../../../gateways/port.ts';
import { gatewayFor, isGatewayName } from '../../../gateways/registry.ts';
import { unseal } from '../../../lib/crypto.ts';
import { findCompanyGateway, type CompanyGatewayRow } from '../payments.repo.ts';

/** What a pay flow needs to reach gateways: the master key (sealed secrets) and each gateway's base URL. */
export type GatewayDeps = { masterKey: Buffer; gatewayUrls: Partial<Record<GatewayName, string>> };

let clientFor: (name: GatewayName) => PaymentGateway = gatewayFor;

/** Replaces the gateway clients (tests use clients with a short timeout); returns the previous resolver. */
export function usePayGatewayClients(
  resolver: (name: GatewayName) => PaymentGateway,
): (name: GatewayName) => PaymentGateway {
  const previous = clientFor;
  clientFor = resolver;
  return previous;
}

export type ResolvedGateway = { name: GatewayName; client: PaymentGateway; account: GatewayAccount };

/**
 * The company's account at a gateway: its enabled `company_gateways` row (else a 422, the merchant has
 * not configured it) and the gateway's base URL (else 503: this installation cannot reach it).
 */
export async function resolveGateway(
  db: Kysely<DB>,
  deps: GatewayDeps,
  scope: { accountId: string; companyId: number; gatewayAccounts?: Partial<Record<string, CompanyGatewayRow | null>> },
  name: string,
): Promise<ResolvedGateway> {
  if (!isGatewayName(name)) throw businessRule(`${name} is not a card gateway`);
  // A row the entry point already read with its own (null: it found none) is not read again.
  const known = scope.gatewayAccounts?.[name];
  const row = known !== undefined ? known : await findCompanyGateway(db, scope.accountId, scope.companyId, name);
  if (!row || !row.secret_encrypted)
    throw businessRule(`The company has no enabled ${name} integration`, [
      { field: 'body/gateway', message: 'not configured for this company' },
    ]);
  const baseUrl = deps.gatewayUrls[name];
  if (!baseUrl) throw new AppError('service_unavailable', `${name} is not reachable from this installation`);
  return {
    name,
    client: clientFor(name),
    account: { baseUrl, publicKey: row.public_key, secretKey: unseal(deps.masterKey, row.secret_encrypted) },
  };
}
