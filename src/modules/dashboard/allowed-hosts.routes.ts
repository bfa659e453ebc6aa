import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DashboardDeps } from './route-options.ts';
import { validationFailed } from '../../http/errors.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { allowedHostProblems, type Problem } from '../merchant-file/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { dashboardConfig, tags } from './route-options.ts';

const AllowedHosts = Type.Object({
  allowed_hosts: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
    maxItems: 100,
    description: 'host names, *.wildcards or host:port, as in the merchant file',
  }),
});

/** The account's allowed hosts (owners and admins), with the merchant file's rules; every change is audited. */
export function registerAllowedHostRoutes(parent: FastifyInstance, context: DashboardDeps): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;
  const manage = dashboardConfig('developers.manage');

  const storedHosts = async (accountId: string) =>
    (await db.selectFrom('accounts').select('allowed_hosts').where('id', '=', accountId).executeTakeFirstOrThrow())
      .allowed_hosts;

  app.get(
    '/allowed_hosts',
    {
      config: manage,
      schema: {
        tags,
        summary: 'The hosts whose pages may call the public checkout API',
        querystring: NoQuery,
        response: { 200: AllowedHosts, ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ allowed_hosts: await storedHosts(actorOf(request).accountId) }),
  );

  app.put(
    '/allowed_hosts',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Replace the allowed hosts (in force in every process within 5 seconds)',
        body: Type.Object(AllowedHosts.properties, { additionalProperties: false }),
        response: { 200: AllowedHosts, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const hosts = [...new Set(request.body.allowed_hosts.map((host) => host.trim()))];
      const problems: Problem[] = [];
      allowedHostProblems(hosts, 'allowed_hosts', (path, message) => problems.push({ path, message }));
      if (problems.length > 0)
        throw validationFailed(
          'Invalid allowed hosts',
          problems.map((problem) => ({ field: problem.path, message: problem.message })),
        );
      const before = await storedHosts(actor.accountId);
      await db
        .updateTable('accounts')
        .set({ allowed_hosts: hosts, updated_at: clock() })
        .where('id', '=', actor.accountId)
        .execute();
      await recordAudit(db, { ...actor, action: 'allowed_hosts.updated', data: { before, after: hosts }, at: clock() });
      return { allowed_hosts: hosts };
    },
  );
}
