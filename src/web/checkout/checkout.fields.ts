import { html, type SafeHtml } from '../payment-pages/html.ts';

/** A labelled input with its (initially empty) error line, tied by aria-describedby. */
export function field(id: string, label: string, attributes: SafeHtml, hint?: string): SafeHtml {
  const describedBy = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
  return html`<div>
<label for="${id}">${label}</label>
${hint ? html`<p id="${id}-hint" class="muted">${hint}</p>` : ''}
<input id="${id}" aria-describedby="${describedBy}" ${attributes}>
<p id="${id}-error" class="error" hidden></p>
</div>`;
}

export function customerFields(prefill: { email?: string; phone?: string }): SafeHtml {
  return html`<fieldset id="customer">
<legend>Seus dados</legend>
${field('customer-email', 'E-mail', html`type="email" autocomplete="email" required value="${prefill.email ?? ''}"`)}
${field('customer-phone', 'Celular com DDD', html`type="tel" inputmode="numeric" autocomplete="tel-national" value="${prefill.phone ?? ''}"`, 'Somente números, por exemplo 11987654321')}
</fieldset>`;
}

/**
 * The payer's name and CPF/CNPJ: shown from the start when every method asks for them (`always`), else by the
 * bundle when the chosen method needs them (a boleto always). What the customer already has is not asked again
 * (nor shown: the page is a link anyone holding it opens).
 */
export function identityFields(known: { name: boolean; identification: boolean }, always = false): SafeHtml {
  if (known.name && known.identification) return html``;
  return html`<fieldset id="identity"${always ? '' : html` hidden`}>
<legend>Dados do pagador</legend>
${known.name ? '' : field('customer-name', 'Nome completo', html`type="text" autocomplete="name" maxlength="255"`)}
${known.identification ? '' : field('customer-document', 'CPF ou CNPJ', html`type="text" autocomplete="off" autocapitalize="characters" maxlength="18"`, 'CPF 000.000.000-00 ou CNPJ 00.000.000/0000-00 (o CNPJ pode ter letras)')}
</fieldset>`;
}

/** Brazil's 27 federative units, the `state` of an address. */
const BRAZILIAN_STATES = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
] as const;

/** The delivery address a page selling physical products asks for (sent as `customer_address`). */
export function addressFields(): SafeHtml {
  return html`<fieldset id="address">
<legend>Endereço de entrega</legend>
${field('address-zipcode', 'CEP', html`type="text" inputmode="numeric" autocomplete="postal-code" maxlength="9" required`, 'Somente números, por exemplo 01310100')}
${field('address-street', 'Rua', html`type="text" autocomplete="address-line1" maxlength="200" required`)}
<div class="row">
${field('address-number', 'Número', html`type="text" autocomplete="address-line2" maxlength="30" required`)}
${field('address-neighborhood', 'Bairro', html`type="text" autocomplete="address-level3" maxlength="120" required`)}
</div>
<div class="row">
${field('address-city', 'Cidade', html`type="text" autocomplete="address-level2" maxlength="120" required`)}
<div>
<label for="address-state">Estado</label>
<select id="address-state" autocomplete="address-level1" aria-describedby="address-state-error" required>
<option value="">Escolha</option>
${BRAZILIAN_STATES.map((state) => html`<option value="${state}">${state}</option>`)}
</select>
<p id="address-state-error" class="error" hidden></p>
</div>
</div>
</fieldset>`;
}

/** One card's fields; card data has no `name`, so the browser never submits it in a form. */
export function cardFields(index: 0 | 1): SafeHtml {
  const prefix = `card${index}`;
  return html`<fieldset id="${prefix}" data-card="${index}">
<legend>${index === 0 ? 'Cartão de crédito' : 'Segundo cartão'}</legend>
${index === 1 ? field('card1-amount', 'Valor neste cartão (R$)', html`type="text" inputmode="decimal" autocomplete="off"`) : ''}
${field(`${prefix}-number`, 'Número do cartão', html`type="text" inputmode="numeric" autocomplete="${index === 0 ? 'cc-number' : 'off'}" maxlength="23"`)}
<p id="${prefix}-brand" class="brand-name muted" aria-live="polite"></p>
${field(`${prefix}-holder`, 'Nome impresso no cartão', html`type="text" autocomplete="${index === 0 ? 'cc-name' : 'off'}" maxlength="60"`)}
<div class="row">
${field(`${prefix}-expiry`, 'Validade (MM/AA)', html`type="text" inputmode="numeric" autocomplete="${index === 0 ? 'cc-exp' : 'off'}" placeholder="MM/AA" maxlength="7"`)}
${field(`${prefix}-cvv`, 'Código de segurança (CVV)', html`type="text" inputmode="numeric" autocomplete="${index === 0 ? 'cc-csc' : 'off'}" maxlength="4"`)}
</div>
<label for="${prefix}-installments">Parcelas</label>
<select id="${prefix}-installments" aria-describedby="${prefix}-installments-error"></select>
<p id="${prefix}-installments-error" class="error" hidden></p>
</fieldset>`;
}

export function couponFields(): SafeHtml {
  return html`<fieldset id="coupon-box">
<legend>Cupom de desconto</legend>
${field('coupon', 'Código do cupom', html`type="text" autocomplete="off" autocapitalize="characters" maxlength="64"`)}
<button type="button" id="apply-coupon" class="secondary">Aplicar cupom</button>
<p id="coupon-status" role="status" aria-live="polite"></p>
</fieldset>`;
}

export function scheduleFields(): SafeHtml {
  return html`<fieldset id="schedule">
<legend>Agendamento</legend>
${field('schedule-date', 'Data', html`type="date" required`)}
<fieldset id="slots" tabindex="-1" aria-describedby="slots-error">
<legend>Horário disponível</legend>
<div id="slot-options"><p class="muted">Escolha uma data para ver os horários.</p></div>
</fieldset>
<p id="slots-error" class="error" hidden></p>
</fieldset>`;
}
