import type { FastifyReply } from 'fastify';

/** Markup that is already safe: produced by `html` from escaped values, never from request or database text. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

function interpolate(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(interpolate).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** A template tag that escapes every interpolated value unless it is SafeHtml, so no dynamic text can inject markup. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  return new SafeHtml(
    strings.reduce(
      (markup, part, index) => markup + part + (index < values.length ? interpolate(values[index]) : ''),
      '',
    ),
  );
}

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** 102656 → "R$ 1.026,56" (with the no-break space pt-BR puts after the symbol). */
export function formatBrl(amountCents: number): string {
  return BRL.format(amountCents / 100);
}

const STYLE = `
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7;line-height:1.5}
main{max-width:34rem;margin:0 auto;padding:1.5rem 1rem;background:#fff;min-height:100vh}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}
dt{color:#454c58}
dd{margin:0;font-weight:600;overflow-wrap:anywhere}
img{display:block;max-width:100%;height:auto}
.qr{width:16rem;margin:1rem auto}
.barcode{width:100%;margin:1rem 0}
.pixel-exact{max-width:none;image-rendering:pixelated;image-rendering:crisp-edges}
.qr-exact{margin:1rem auto}
.barcode-box{overflow-x:auto;margin:1rem 0}
dl.slip{font-size:.875rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
textarea{width:100%;font:1rem ui-monospace,monospace;padding:.5rem;border:1px solid #5f6773;border-radius:.25rem;resize:none;color:#1b1f24}
button,.button{display:inline-block;margin-top:.5rem;padding:.625rem 1rem;font:inherit;font-weight:600;color:#fff;background:#0b57d0;border:0;border-radius:.25rem;text-decoration:none;cursor:pointer}
button:focus-visible,.button:focus-visible,textarea:focus-visible{outline:3px solid #1b1f24;outline-offset:2px}
.status{padding:.5rem .75rem;border-radius:.25rem;background:#e8eefc;font-weight:600}
.muted{color:#454c58;font-size:.875rem}
.success{background:#e6f4ea;color:#0d5224}
ul.summary-items{padding-left:1.25rem}
`;

/** The whole document: pt-BR, responsive, kept out of search engines. */
export function page(title: string, body: SafeHtml, script?: { nonce: string; source: string }): string {
  return html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
${script ? html`<script nonce="${script.nonce}">${new SafeHtml(script.source)}</script>` : ''}
</body>
</html>
`.markup;
}

/**
 * Nothing loads from anywhere but inline styles, `data:` images and, when `nonce` is given, the one
 * script carrying it; the page cannot be framed, submit forms, or leak its capability URL as a referrer.
 */
export function contentSecurityPolicy(nonce?: string): string {
  // The script polls the payment's own status on this origin, nothing else.
  const script = nonce ? `; script-src 'nonce-${nonce}'; connect-src 'self'` : '';
  return `default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'${script}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** Headers every hosted payment response carries: the URL is a capability, so nothing is cached, indexed or referred. */
export function privateDocumentHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers({
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-robots-tag': 'noindex, nofollow',
  });
}

export function sendHtml(reply: FastifyReply, status: number, document: string, nonce?: string): FastifyReply {
  return privateDocumentHeaders(reply)
    .code(status)
    .headers({ 'content-security-policy': contentSecurityPolicy(nonce), 'x-frame-options': 'DENY' })
    .type('text/html; charset=utf-8')
    .send(document);
}
