import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, SafeHtml } from '../payment-pages/html.ts';
import { textColorOn } from './contrast.ts';
import { SUMMARY_STYLE } from './order-summary.ts';

export const BUNDLE_PATH = '/pay/assets/checkout.js';

const STYLE = `
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7;line-height:1.5}
header.brand{background:var(--main);color:var(--on-main);padding:.75rem 1rem}
header.brand .inner{max-width:40rem;margin:0 auto;display:flex;flex-wrap:wrap;align-items:center;gap:.75rem}
header.brand img{max-height:3rem;width:auto;background:#fff;border-radius:.25rem}
header.brand h1{font-size:1.25rem;margin:0;flex:1}
header.brand nav ul{list-style:none;margin:0;padding:0;display:flex;gap:1rem}
header.brand a{color:var(--on-main)}
main{max-width:40rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh}
h2{font-size:1.125rem;margin:1.25rem 0 .5rem}
fieldset{border:1px solid #c9ced6;border-radius:.375rem;margin:1rem 0;padding:.75rem 1rem}
legend{font-weight:700;padding:0 .25rem}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}
.choice label{display:inline;font-weight:400;margin:0 .25rem}
input,select{font:inherit;padding:.5rem;border:1px solid #5f6773;border-radius:.25rem;width:100%;max-width:24rem;color:#1b1f24;background:#fff}
input[type=radio],input[type=checkbox]{width:auto}
input[aria-invalid=true],select[aria-invalid=true]{border:2px solid #b3261e}
.row{display:flex;gap:.75rem;flex-wrap:wrap}.row>div{flex:1;min-width:8rem}
button,.button{display:inline-block;margin-top:.75rem;padding:.75rem 1.25rem;font:inherit;font-weight:700;color:var(--on-main);background:var(--main);border:0;border-radius:.25rem;text-decoration:none;cursor:pointer}
button.secondary{background:#fff;color:#1b1f24;border:1px solid #5f6773}
button[disabled]{opacity:.6;cursor:progress}
a:focus-visible,button:focus-visible,.button:focus-visible,input:focus-visible,select:focus-visible,[tabindex]:focus-visible{outline:3px solid #1b1f24;outline-offset:2px}
#order-summary summary{cursor:pointer}
#order-summary summary h2{display:inline}
.summary-total{font-weight:700;margin:.75rem 0 0}
@media (min-width:64rem){main,header.brand .inner{max-width:64rem}#checkout-form{display:grid;grid-template-columns:minmax(0,1fr) 22rem;column-gap:2rem;align-items:start}#checkout-form>*{grid-column:1}#checkout-form>button{justify-self:start}#checkout-form>#order-summary{grid-column:2;grid-row:1/span 40;position:sticky;top:1rem;border:1px solid #e3e6ea;border-radius:.5rem;padding:1rem}}
ul.products{list-style:none;padding:0;margin:0}
ul.products li{display:flex;gap:.75rem;align-items:flex-start;padding:.75rem 0;border-bottom:1px solid #e3e6ea}
ul.products img,.image-placeholder{width:4rem;height:4rem;object-fit:cover;border-radius:.25rem;flex:none}
.image-placeholder{display:flex;align-items:center;justify-content:center;background:#e3e6ea;color:#454c58;font-weight:700;font-size:1.5rem}
ul.products .info{flex:1}
ul.products input{width:5rem}
.badge{display:inline-block;font-size:.75rem;background:#fff3c4;color:#5c4400;border-radius:1rem;padding:0 .5rem;margin-left:.25rem}
.error{color:#b3261e;font-weight:600;margin:.25rem 0}
.alert{border:2px solid #b3261e;background:#fdecea;padding:.5rem .75rem;border-radius:.25rem}
.status{padding:.5rem .75rem;border-radius:.25rem;background:#e8eefc;font-weight:600}
.success{background:#e6f4ea;color:#0d5224}
.muted{color:#454c58;font-size:.875rem}
.total{font-size:1.25rem;font-weight:700}
.qr{max-width:none;margin:1rem auto;display:block;image-rendering:pixelated;image-rendering:crisp-edges}
.custom-code{width:100%;height:0;border:0}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
textarea{width:100%;font:1rem ui-monospace,monospace;padding:.5rem;border:1px solid #5f6773;border-radius:.25rem;resize:none;color:#1b1f24;background:#f8f9fa}
dl.receipt{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}
dl.receipt dt{color:#454c58}
dl.receipt dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.amount{font-size:1.25rem;font-weight:700}
ul.summary-items{padding-left:1.25rem}
@media (max-width:30rem){main{padding:.75rem}.row{display:block}}
`;

export type Layout = {
  title: string;
  mainColor: string;
  index: boolean;
  header: SafeHtml;
  body: SafeHtml;
  nonce?: string;
};

/** The document shell: pt-BR, responsive, branded, with the client bundle when a nonce is given. */
export function layout({ title, mainColor, index, header, body, nonce }: Layout): string {
  return html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${index ? '' : html`<meta name="robots" content="noindex">`}
<title>${title}</title>
<style>${new SafeHtml(STYLE + SUMMARY_STYLE)}:root{--main:${mainColor};--on-main:${textColorOn(mainColor)}}</style>
</head>
<body>
${header}
<main id="main">
${body}
</main>
${nonce ? html`<script nonce="${nonce}" src="${BUNDLE_PATH}" defer></script>` : ''}
</body>
</html>
`.markup;
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Our one script (by nonce), calls to this service and to the page's gateway tokenizer only, images from
 * https and data URLs, the merchant's code only in its own sandboxed frame, and no framing of the page.
 */
export function checkoutPolicy(nonce: string | undefined, connectOrigins: string[]): string {
  return [
    "default-src 'none'",
    nonce ? `script-src 'nonce-${nonce}'` : "script-src 'none'",
    "style-src 'unsafe-inline'",
    "img-src 'self' data: https:",
    `connect-src 'self' ${connectOrigins.join(' ')}`.trim(),
    "frame-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function sendPage(
  reply: FastifyReply,
  status: number,
  document: string,
  policy: string,
  index = false,
): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-security-policy': policy,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'x-frame-options': 'DENY',
      ...(index ? {} : { 'x-robots-tag': 'noindex' }),
    })
    .type('text/html; charset=utf-8')
    .send(document);
}
