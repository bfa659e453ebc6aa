import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { dashboardAssets } from './bundle.ts';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

function shell(scriptVersion: string, stylesVersion: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Painel</title>
<link rel="stylesheet" href="/dashboard/assets/app.css?v=${stylesVersion}">
<script type="module" src="/dashboard/assets/app.js?v=${scriptVersion}"></script>
</head>
<body><div id="app"></div><noscript>Ative o JavaScript para usar o painel.</noscript></body>
</html>`;
}

const secure = (reply: FastifyReply) =>
  reply
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY');

/** The dashboard's single-page app under /dashboard: one HTML shell for every page, and its script and styles. */
export function registerDashboardPages(app: FastifyInstance): void {
  const page = { schema: { hide: true }, config: { access: 'open' as const } };
  const sendShell = async (_request: unknown, reply: FastifyReply) => {
    const assets = await dashboardAssets();
    return secure(reply)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(shell(version(assets.script), version(assets.styles)));
  };
  app.get('/dashboard', page, sendShell);
  app.get('/dashboard/*', page, sendShell);
  app.get('/dashboard/assets/app.js', page, async (_request, reply) => {
    const { script } = await dashboardAssets();
    return secure(reply)
      .header('cache-control', 'public, max-age=300')
      .type('text/javascript; charset=utf-8')
      .send(script);
  });
  app.get('/dashboard/assets/app.css', page, async (_request, reply) => {
    const { styles } = await dashboardAssets();
    return secure(reply).header('cache-control', 'public, max-age=300').type('text/css; charset=utf-8').send(styles);
  });
}
