import type { FastifyReply } from 'fastify';
import type { HostedCheckout } from './checkout.model.ts';

/**
 * The merchant's snippet as its own document, framed by the checkout page with `sandbox="allow-scripts"`:
 * it runs in an opaque origin, so it cannot read the card form, the page's DOM or storage, and its API
 * calls carry `Origin: null`, which no host rule accepts. (A `srcdoc` frame would inherit the page's
 * nonce-only CSP and the snippet's scripts would not run at all.)
 */
export function sendCustomCode(reply: FastifyReply, checkout: HostedCheckout | undefined): FastifyReply {
  if (!checkout?.customCode)
    return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not found');
  return reply
    .headers({
      'content-security-policy':
        "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline' https:; style-src 'unsafe-inline' https:; img-src https: data:; connect-src https:; frame-ancestors 'self'",
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"></head><body>${checkout.customCode}</body></html>`,
    );
}
