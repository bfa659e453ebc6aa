import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DashboardDeps } from './route-options.ts';
import { notFound, validationFailed } from '../../http/errors.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { companyDataProblems, fineTermProblems, type Problem } from '../merchant-file/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { dashboardConfig, tags } from './route-options.ts';
import {
  companyBelongsTo,
  listCompanySettings,
  listGateways,
  saveGateway,
  updateCompanySettings,
} from './settings.repo.ts';
import {
  CompanyParams,
  CompanySettingsBody,
  CompanySettingsView,
  GatewayBody,
  GatewayParams,
  GatewayView,
  type CompanySettingsInput,
} from './settings.schemas.ts';

/** The merchant file's rules on the fields given (the schema has already checked each field alone). */
function settingsProblems(input: CompanySettingsInput): Problem[] {
  const problems: Problem[] = [];
  const report = (path: string, message: string) => problems.push({ path, message });
  companyDataProblems(input, 'body', report);
  if (input.fine_terms) fineTermProblems(input.fine_terms, 'body.fine_terms', report);
  return problems;
}

/** Company settings (every role reads; owners and admins change) and gateway credentials (owners and admins). */
export function registerSettingsRoutes(parent: FastifyInstance, context: DashboardDeps): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;
  const { masterKey } = context.config;
  const manage = dashboardConfig('settings.manage');

  app.get(
    '/settings',
    {
      config: dashboardConfig('settings.read'),
      schema: {
        tags,
        summary: "The account's companies: data, address, time zone, Pix and boleto terms, default fine and interest",
        querystring: NoQuery,
        response: { 200: Type.Object({ companies: Type.Array(CompanySettingsView) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ companies: await listCompanySettings(db, actorOf(request).accountId) }),
  );

  app.patch(
    '/settings/companies/:company_id',
    {
      config: manage,
      schema: {
        tags,
        summary: "Change a company's settings (only the fields given), with the merchant file's rules",
        params: CompanyParams,
        body: CompanySettingsBody,
        response: { 200: CompanySettingsView, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const problems = settingsProblems(request.body);
      if (problems.length > 0)
        throw validationFailed(
          'Invalid settings',
          problems.map((problem) => ({ field: problem.path, message: problem.message })),
        );
      const companyId = request.params.company_id;
      const updated = await updateCompanySettings(db, actor.accountId, companyId, request.body, clock());
      if (!updated) throw notFound('Company');
      await recordAudit(db, {
        ...actor,
        action: 'settings.company_updated',
        subject: `company:${companyId}`,
        data: { changes: request.body },
        at: clock(),
      });
      return updated;
    },
  );

  app.get(
    '/settings/companies/:company_id/gateways',
    {
      config: manage,
      schema: {
        tags,
        summary:
          "A company's gateway credentials: the public key, the secret's last four characters and when it was set",
        params: CompanyParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ data: Type.Array(GatewayView) }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { accountId } = actorOf(request);
      const companyId = request.params.company_id;
      if (!(await companyBelongsTo(db, accountId, companyId))) throw notFound('Company');
      return { data: await listGateways(db, masterKey, accountId, companyId) };
    },
  );

  app.patch(
    '/settings/companies/:company_id/gateways/:gateway',
    {
      config: manage,
      schema: {
        tags,
        summary: "Set a gateway's credentials: the secret is sealed and never shown back (omitted: kept)",
        params: GatewayParams,
        body: GatewayBody,
        response: { 200: GatewayView, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { company_id: companyId, gateway } = request.params;
      if (!(await companyBelongsTo(db, actor.accountId, companyId))) throw notFound('Company');
      await saveGateway(db, masterKey, { accountId: actor.accountId, companyId, gateway }, request.body, clock());
      await recordAudit(db, {
        ...actor,
        action: 'settings.gateway_updated',
        subject: `company:${companyId}`,
        // Never the secret: only that it changed.
        data: {
          gateway,
          enabled: request.body.enabled,
          public_key: request.body.public_key,
          secret_changed: request.body.secret_key !== undefined,
        },
        at: clock(),
      });
      const views = await listGateways(db, masterKey, actor.accountId, companyId);
      return views.find((view) => view.gateway === gateway)!;
    },
  );
}
