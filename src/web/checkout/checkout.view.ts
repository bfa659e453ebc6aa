import { formatBrl, html, type SafeHtml } from '../payment-pages/html.ts';
import {
  addressFields,
  cardFields,
  couponFields,
  customerFields,
  identityFields,
  scheduleFields,
} from './checkout.fields.ts';
import type { Closed, HostedCheckout, HostedProduct } from './checkout.model.ts';
import { summaryLines } from './order-summary.ts';

/** Credit card, Pix and boleto. */
const PAY_METHODS = 3;

/** What the client bundle reads from the form: where to pay and how to tokenize (never secrets). */
function dataAttributes(checkout: HostedCheckout, gatewayUrl: string | undefined): SafeHtml {
  return html`data-kind="${checkout.kind}" data-id="${checkout.id}" data-company-id="${checkout.companyId}" data-time-zone="${checkout.timeZone}"
 data-gateway="${checkout.gateway}" data-public-key="${checkout.publicKey}" data-gateway-url="${gatewayUrl ?? ''}"
 data-two-cards="${checkout.enableTwoCards}" data-scheduling="${checkout.requireScheduling}" data-asks-customer="${checkout.asksCustomer}" data-asks-address="${checkout.asksAddress}" data-asks-identity="${checkout.asksIdentity.join(' ')}"
 data-redirect-url="${checkout.redirectUrl ?? ''}" data-upsell-name="${checkout.upsell?.name ?? ''}"`;
}

export function brandHeader(checkout: Pick<HostedCheckout, 'title' | 'logo' | 'menus'>): SafeHtml {
  return html`<header class="brand"><div class="inner">
${checkout.logo ? html`<img src="${checkout.logo}" alt="" width="96" height="48">` : ''}
<h1>${checkout.title}</h1>
${checkout.menus.length ? html`<nav aria-label="Links da loja"><ul>${checkout.menus.map((menu) => html`<li><a href="${menu.url}" rel="noopener noreferrer">${menu.label}</a></li>`)}</ul></nav>` : ''}
</div></header>`;
}

/** A product without a picture (or whose picture fails to load) gets its initial on a neutral square. */
export function imagePlaceholder(name: string): SafeHtml {
  return html`<span class="image-placeholder" aria-hidden="true">${[...name.trim()][0]?.toUpperCase() ?? ''}</span>`;
}

function productItem(product: HostedProduct, index: number): SafeHtml {
  const quantityId = `quantity-${index}`;
  return html`<li data-product-id="${product.id ?? ''}" data-value-cents="${product.valueCents}">
${product.image ? html`<img src="${product.image}" alt="" width="64" height="64">` : imagePlaceholder(product.name)}
<div class="info">
<strong>${product.name}</strong>${product.recommended ? html`<span class="badge">Recomendado</span>` : ''}
${product.description ? html`<p class="muted">${product.description}</p>` : ''}
<p>${formatBrl(product.valueCents)}${product.allowQuantity ? '' : html` × ${product.quantity}`}</p>
</div>
${
  product.allowQuantity
    ? html`<div><label for="${quantityId}">Quantidade</label><input id="${quantityId}" class="quantity" type="number" inputmode="numeric" min="1" max="${product.maxQuantity ?? 99}" value="${product.quantity}" aria-describedby="${quantityId}-error"><p id="${quantityId}-error" class="error" hidden></p></div>`
    : html`<input class="quantity" type="hidden" value="${product.quantity}">`
}
</li>`;
}

/**
 * The whole form, server-rendered; the bundle fills the methods and installments from GET /payment_plans.
 * `totalCents` is the total the plans quote before interest; without it, the items' sum.
 */
export function checkoutBody(checkout: HostedCheckout, gatewayUrl: string | undefined, totalCents?: number): SafeHtml {
  const itemsCents = checkout.products.reduce((sum, product) => sum + product.valueCents * product.quantity, 0);
  // Asked for every method, the payer's identity is part of the buyer's data, wherever customer_data_at puts them.
  const identityAlways = checkout.asksIdentity.length === PAY_METHODS && checkout.asksCustomer;
  const identity = identityFields(checkout.identityKnown, identityAlways);
  const customer = checkout.asksCustomer
    ? html`${customerFields(checkout.prefill)}${identityAlways ? identity : ''}${checkout.asksAddress ? addressFields() : ''}`
    : '';
  return html`<noscript><p class="alert">Ative o JavaScript para pagar: os dados do cartão são protegidos no seu navegador antes do envio.</p></noscript>
<form id="checkout-form" novalidate ${dataAttributes(checkout, gatewayUrl)}>
<div id="form-errors" class="alert" role="alert" tabindex="-1" hidden></div>
<section id="order-summary" aria-labelledby="products-heading">
<details open>
<summary><h2 id="products-heading">Resumo do pedido</h2></summary>
<ul class="products">${checkout.products.map(productItem)}</ul>
${checkout.notes.map((note) => html`<p class="muted">${note}</p>`)}
${summaryLines(checkout.lines, checkout.kind !== 'charge')}
<p class="summary-total">Total: <span id="summary-total">${formatBrl(totalCents ?? itemsCents)}</span></p>
${checkout.enableTwoCards ? html`<ul id="summary-cards" class="summary-cards" aria-label="Valor de cada cartão" hidden></ul>` : ''}
</details>
</section>
${checkout.customerDataAt === 'start' ? customer : ''}
${checkout.enableCoupons ? couponFields() : ''}
${checkout.requireScheduling ? scheduleFields() : ''}
<fieldset id="methods" tabindex="-1" aria-describedby="methods-error">
<legend>Forma de pagamento</legend>
<div id="method-options"><p class="muted">Carregando formas de pagamento…</p></div>
<p id="methods-error" class="error" hidden></p>
</fieldset>
${identityAlways ? '' : identity}
<div id="card-section" hidden>
${cardFields(0)}
${checkout.enableTwoCards ? html`<div class="choice"><input type="checkbox" id="two-cards"><label for="two-cards">Pagar com dois cartões</label></div><div id="card1-section" hidden>${cardFields(1)}</div>` : ''}
</div>
${checkout.customerDataAt === 'end' ? customer : ''}
<p class="total">Total: <span id="total" aria-live="polite">${formatBrl(totalCents ?? itemsCents)}</span></p>
<button type="submit" id="pay-button">Pagar</button>
</form>
<section id="result" tabindex="-1" hidden aria-labelledby="result-heading"></section>
<p id="live-status" class="status" role="status" aria-live="polite" hidden></p>
${checkout.customCode ? html`<iframe class="custom-code" title="Conteúdo do vendedor" sandbox="allow-scripts" src="/pay/${checkout.kind === 'page' ? 'pages' : checkout.kind === 'cart' ? 'carts' : 'charges'}/${checkout.id}/custom_code"></iframe>` : ''}`;
}

const CLOSED: Record<Closed, { heading: string; text: string; status: string }> = {
  charge_paid: {
    heading: 'Esta cobrança já foi paga',
    text: 'O pagamento desta cobrança já foi confirmado. Não é preciso pagar de novo.',
    status: 'paga',
  },
  charge_cancelled: {
    heading: 'Esta cobrança foi cancelada',
    text: 'Esta cobrança foi cancelada e não pode mais ser paga. Se tiver dúvidas, fale com quem fez a cobrança.',
    status: 'cancelada',
  },
  cart_bought: {
    heading: 'Este carrinho já foi comprado',
    text: 'O pagamento deste carrinho já foi confirmado. Não é preciso pagar de novo.',
    status: 'pago',
  },
};

/** A cart or charge that can no longer be paid: what happened to it, in place of the form. */
export function closedBody(checkout: HostedCheckout & { closed: Closed }): SafeHtml {
  const { heading, text, status } = CLOSED[checkout.closed];
  const done =
    checkout.closed === 'charge_paid'
      ? html`<p><a href="/pay/charges/${checkout.id}/done">Ver o pagamento confirmado</a></p>`
      : '';
  return messageBody(
    heading,
    text,
    html`<p class="status${checkout.closed === 'charge_cancelled' ? '' : ' success'}" role="status">Situação: ${status}</p>${done}`,
  );
}

/** A short page for unknown links, closed carts and charges, and the charge confirmation. */
export function messageBody(heading: string, text: string, extra?: SafeHtml): SafeHtml {
  return html`<h2>${heading}</h2><p>${text}</p>${extra ?? ''}`;
}
