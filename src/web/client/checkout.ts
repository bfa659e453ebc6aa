import { couponMessage, getJson, payError, postJson, type ApiAnswer } from './api.ts';
import { announce, byId, clearErrors, clearFieldErrors, showErrors, valueOf, type FieldError } from './dom.ts';
import { cardErrors, readExpiry, wireCardInputs } from './card-form.ts';
import { replaceBrokenImages } from './images.ts';
import { readIdentity, showIdentity, wireIdentityInputs } from './identity.ts';
import { brl, digits, parseAmount, toCents } from './format.ts';
import {
  baseOfOneTimeOption,
  fetchPlans,
  optionTotalCents,
  renderInstallments,
  renderMethods,
  selectedMethod,
  type PlanOption,
  type Plans,
} from './plans.ts';
import type { ReceiptFacts } from './receipt.ts';
import { showBoleto, showPaid, showPending, showPix, type Settings } from './result.ts';
import { reloadSummaryLines, showCardShares, showSummary } from './summary.ts';
import { loadSlots, scheduledAt, selectedSlot } from './schedule.ts';
import { tokenizeCard, type Card, type Gateway } from './tokenize.ts';

replaceBrokenImages();
const form = byId<HTMLFormElement>('checkout-form');
if (form) start(form);

function start(form: HTMLFormElement): void {
  const data = form.dataset;
  const kind = data.kind as 'page' | 'cart' | 'charge';
  const id = data.id!;
  const resource = kind === 'page' ? 'checkout_pages' : kind === 'cart' ? 'carts' : 'charges';
  const gateway: Gateway = {
    name: data.gateway!,
    url: data.gatewayUrl!,
    publicKey: data.publicKey!,
    cardHashPath: `/api/v1/${resource}/${id}/card_hash_key`,
  };
  const settings: Settings = { redirectUrl: data.redirectUrl ?? '', upsellName: data.upsellName ?? '' };
  let plans: Plans = {};
  let coupon = '';
  /** The total before interest and fees: what two card amounts must add up to. */
  let baseTotal = 0;
  /** With two cards, each card's share and the card options quoted on it (as the service quotes each share). */
  let shares: { cents: [number, number]; options: [PlanOption[], PlanOption[]] } | undefined;
  let shareRequest = 0;
  let shareTimer: ReturnType<typeof setTimeout> | undefined;

  const quantityInputs = () => [...form.querySelectorAll<HTMLInputElement>('input.quantity[type=number]')];
  /** The bounds the page was rendered with (1 … the product's max quantity), checked before asking the service. */
  const quantityErrors = (): FieldError[] =>
    quantityInputs().flatMap((input) => {
      const [value, min, max] = [Number(input.value), Number(input.min) || 1, Number(input.max) || 99];
      return Number.isInteger(value) && value >= min && value <= max
        ? []
        : [{ field: input.id, message: `Escolha uma quantidade de ${min} a ${max}.` }];
    });

  const products = () =>
    [...form.querySelectorAll<HTMLElement>('ul.products li')].map((item) => ({
      id: Number(item.dataset.productId),
      quantity: Math.max(1, Math.floor(Number(item.querySelector<HTMLInputElement>('.quantity')?.value) || 1)),
    }));

  const planQuery = (withCoupon = coupon) => {
    const query = new URLSearchParams();
    if (kind === 'page') {
      query.set('checkout_page_id', id);
      for (const product of products()) if (product.id) query.set(`products[${product.id}]`, String(product.quantity));
    } else query.set(kind === 'cart' ? 'cart_id' : 'charge_id', id);
    if (withCoupon) query.set('coupon', withCoupon);
    return query.toString();
  };

  const optionFor = (method: string, selectId?: string): PlanOption | undefined => {
    const options = plans[method as keyof Plans] ?? [];
    const chosen = selectId ? byId<HTMLSelectElement>(selectId)?.value : undefined;
    return options.find((option) => option.id === chosen) ?? options[0];
  };
  const baseCents = () => baseTotal;
  const twoCards = () => byId<HTMLInputElement>('two-cards')?.checked === true;
  const secondCents = () => {
    const cents = parseAmount(valueOf('card1-amount'));
    return cents !== undefined && cents > 0 && cents < baseCents() ? cents : undefined;
  };
  const shareOption = (index: 0 | 1) => {
    const options = shares?.options[index] ?? [];
    return (
      options.find((option) => option.id === byId<HTMLSelectElement>(`card${index}-installments`)?.value) ?? options[0]
    );
  };

  const renderCards = () => {
    renderInstallments(
      'card0-installments',
      shares?.options[0] ?? plans.credit_card ?? [],
      shares?.cents[0] ?? baseCents(),
    );
    renderInstallments('card1-installments', shares?.options[1] ?? [], shares?.cents[1] ?? 0);
  };

  const updateView = () => {
    const method = selectedMethod();
    byId('card-section')!.hidden = method !== 'credit_card';
    showIdentity(form, method);
    const second = byId('card1-section');
    if (second) second.hidden = !twoCards();
    const [first, last] = [shareOption(0), shareOption(1)];
    const option = method ? optionFor(method, method === 'credit_card' ? 'card0-installments' : undefined) : undefined;
    const split = method === 'credit_card' && twoCards() && shares && first && last ? [first, last] : undefined;
    showCardShares(split?.map((each) => ({ count: each.number, valueCents: toCents(each.value) })));
    const totalCents = split
      ? optionTotalCents(split[0]!) + optionTotalCents(split[1]!)
      : option && optionTotalCents(option);
    if (totalCents === undefined) return;
    showTotal(brl(totalCents));
    showSummary(kind, { baseCents: baseCents(), totalCents, coupon });
  };

  /** Quotes both shares with the page's own query and `amount` = the share, the way the service prices each card. */
  const refreshShares = async (): Promise<void> => {
    clearTimeout(shareTimer);
    const request = ++shareRequest;
    const second = twoCards() ? secondCents() : undefined;
    let next: typeof shares;
    if (second !== undefined) {
      const cents: [number, number] = [baseCents() - second, second];
      const [first, last] = await Promise.all(
        cents.map((share) => fetchPlans(`${planQuery()}&amount=${(share / 100).toFixed(2)}`)),
      );
      if (request !== shareRequest) return;
      next = first && last ? { cents, options: [first.credit_card ?? [], last.credit_card ?? []] } : undefined;
    }
    shares = next;
    renderCards();
    updateView();
  };
  const sharesMatch = (second: number) =>
    shares !== undefined && shares.cents[0] === baseCents() - second && shares.cents[1] === second;

  /** The cart's total without a coupon, to tell the buyer what a coupon took off. */
  let undiscountedBase: number | undefined;

  const refreshPlans = async (fetched?: Plans) => {
    const wrongQuantities = quantityErrors();
    if (wrongQuantities.length) return showErrors(wrongQuantities);
    fetched ??= await fetchPlans(planQuery());
    if (!fetched) {
      showErrors([
        { field: 'methods', message: 'Não foi possível carregar as formas de pagamento. Recarregue a página.' },
      ]);
      return;
    }
    clearFieldErrors(['methods', ...quantityInputs().map((input) => input.id)]);
    plans = fetched;
    const oneTime = Object.values(plans)
      .flatMap((options) => options ?? [])
      .filter((option) => option.number === 1);
    baseTotal = oneTime.map(baseOfOneTimeOption).find((base) => base !== undefined) ?? 0;
    if (!coupon) undiscountedBase = baseTotal;
    renderMethods(plans, updateView);
    renderCards();
    updateView();
    await refreshShares();
  };

  for (const input of quantityInputs()) input.addEventListener('change', () => void refreshPlans());
  wireCardInputs(0);
  wireCardInputs(1);
  wireIdentityInputs();
  byId('card0-installments')?.addEventListener('change', updateView);
  byId('card1-installments')?.addEventListener('change', updateView);
  byId('two-cards')?.addEventListener('change', () => {
    updateView();
    void refreshShares();
  });
  byId('card1-amount')?.addEventListener('input', () => {
    clearTimeout(shareTimer);
    shareTimer = setTimeout(() => void refreshShares(), 300);
  });
  byId('card1-amount')?.addEventListener('change', () => void refreshShares());
  byId('apply-coupon')?.addEventListener('click', () => void applyCoupon());
  byId('schedule-date')?.addEventListener('change', () => void loadSlots(data.companyId!, valueOf('schedule-date')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void pay();
  });
  void refreshPlans();

  /** A refused coupon is dropped (the plans go back to the total without it) and explained at its field. */
  async function refuseCoupon(message: string): Promise<void> {
    const dropped = coupon !== '';
    coupon = '';
    byId('coupon-status')!.textContent = '';
    if (dropped) await refreshPlans();
    showErrors([{ field: 'coupon', message }]);
  }

  async function applyCoupon(): Promise<void> {
    const code = valueOf('coupon').toUpperCase();
    const status = byId('coupon-status')!;
    if (!code) return showErrors([{ field: 'coupon', message: 'Digite o código do cupom.' }]);
    if (kind === 'cart') {
      // The cart's own pricing decides (a line that is no catalog product, a product-restricted coupon…).
      const answer = await getJson(`/api/v1/payment_plans?${planQuery(code)}`);
      if (answer.status !== 200) return refuseCoupon(couponMessage(answer.body?.errors?.[0]));
      clearFieldErrors(['coupon']);
      coupon = code;
      await refreshPlans(answer.body as Plans);
      const off = undiscountedBase !== undefined ? undiscountedBase - baseTotal : 0;
      status.textContent = off > 0 ? `Cupom ${coupon} aplicado: ${brl(off)} de desconto.` : `Cupom ${coupon} aplicado.`;
      return;
    }
    const ids = products()
      .map((product) => product.id)
      .filter(Boolean)
      .join(',');
    const answer = await getJson(
      `/api/v1/coupons/${encodeURIComponent(code)}/validate${ids ? `?product_id=${ids}` : ''}`,
    );
    if (answer.status !== 200) return refuseCoupon(couponMessage(answer.body?.error));
    clearErrors();
    coupon = answer.body.code;
    status.textContent = `Cupom ${coupon} aplicado: ${answer.body.type === 'percentage' ? `${answer.body.value}% de desconto` : `${brl(toCents(answer.body.value))} de desconto`}.`;
    await refreshPlans();
  }

  function readCard(index: 0 | 1, errors: FieldError[]): Card {
    const prefix = `card${index}`;
    const typed = {
      number: valueOf(`${prefix}-number`),
      holder: valueOf(`${prefix}-holder`),
      expiry: valueOf(`${prefix}-expiry`),
      cvv: digits(valueOf(`${prefix}-cvv`)),
    };
    errors.push(...cardErrors(prefix, typed, new Date()));
    const expiry = readExpiry(typed.expiry, new Date());
    const { month, year } = typeof expiry === 'object' ? expiry : { month: 0, year: 0 };
    const number = digits(typed.number);
    return { number, holder: typed.holder, month: String(month).padStart(2, '0'), year: String(year), cvv: typed.cvv };
  }

  function readAddress(errors: FieldError[]): Record<string, string> {
    const zipcode = digits(valueOf('address-zipcode'));
    if (zipcode.length !== 8) errors.push({ field: 'address-zipcode', message: 'O CEP tem 8 dígitos.' });
    const address: Record<string, string> = { zipcode };
    const required = [
      ['street', 'Informe a rua.'],
      ['number', 'Informe o número (ou S/N).'],
      ['neighborhood', 'Informe o bairro.'],
      ['city', 'Informe a cidade.'],
    ] as const;
    for (const [part, message] of required) {
      address[part] = valueOf(`address-${part}`);
      if (!address[part]) errors.push({ field: `address-${part}`, message });
    }
    address.state = byId<HTMLSelectElement>('address-state')!.value;
    if (!address.state) errors.push({ field: 'address-state', message: 'Escolha o estado.' });
    return address;
  }

  async function pay(): Promise<void> {
    clearErrors();
    const errors: FieldError[] = [];
    const body: Record<string, unknown> = {};
    if (data.asksCustomer === 'true') {
      const email = valueOf('customer-email');
      const phone = digits(valueOf('customer-phone'));
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
        errors.push({ field: 'customer-email', message: 'Informe um e-mail válido.' });
      if (phone && phone.length > 11)
        errors.push({ field: 'customer-phone', message: 'O celular tem no máximo 11 dígitos, com DDD.' });
      body.customer_email = email;
      if (phone) body.customer_phone = phone;
    }
    if (data.asksAddress === 'true') body.customer_address = readAddress(errors);
    if (data.scheduling === 'true') {
      const date = valueOf('schedule-date');
      const slot = selectedSlot();
      if (!date) errors.push({ field: 'schedule-date', message: 'Escolha a data do agendamento.' });
      else if (!slot) errors.push({ field: 'slots', message: 'Escolha um horário disponível.' });
      else {
        const at = scheduledAt(date, slot, data.timeZone!);
        if (at) body.scheduled_at = at;
        else
          errors.push({
            field: 'slots',
            message: 'Este horário não existe nesta data (mudança de horário de verão). Escolha outro.',
          });
      }
    }
    errors.push(...quantityErrors());
    const method = selectedMethod();
    if (!method) errors.push({ field: 'methods', message: 'Escolha a forma de pagamento.' });
    Object.assign(body, readIdentity(form, method, errors));
    const cards: Card[] = [];
    if (method === 'credit_card') {
      cards.push(readCard(0, errors));
      if (twoCards()) {
        cards.push(readCard(1, errors));
        const second = secondCents();
        // The options chosen must be those quoted on the current shares (a typed amount may still be pending).
        if (second !== undefined && !sharesMatch(second)) await refreshShares();
        if (second === undefined)
          errors.push({ field: 'card1-amount', message: `Informe um valor entre R$ 0,01 e ${brl(baseCents() - 1)}.` });
        else if (!sharesMatch(second))
          errors.push({
            field: 'card1-amount',
            message: 'Não foi possível calcular as parcelas deste valor. Tente de novo.',
          });
        else {
          body.credit_card_0_amount = (baseCents() - second) / 100;
          body.credit_card_1_amount = second / 100;
          body.credit_card_0_payment_plan = byId<HTMLSelectElement>('card0-installments')!.value;
          body.credit_card_1_payment_plan = byId<HTMLSelectElement>('card1-installments')!.value;
        }
      }
    }
    if (errors.length) return showErrors(errors);

    const button = byId<HTMLButtonElement>('pay-button')!;
    button.disabled = true;
    announce('Processando o pagamento…');
    try {
      const option = optionFor(method!, method === 'credit_card' ? 'card0-installments' : undefined)!;
      body.payment_plan_id = option.id;
      for (const [index, card] of cards.entries()) {
        const tokenized = await tokenizeCard(gateway, card);
        if ('error' in tokenized)
          return showErrors([
            {
              field: `card${index}-number`,
              message: 'Não foi possível validar este cartão. Confira os dados ou use outro cartão.',
            },
          ]);
        if (gateway.name === 'gateway_b' && index === 0) body.confirmation_token_id = tokenized.token;
        else body[`credit_card_${index}_token`] = tokenized.token;
      }
      if (kind === 'page')
        Object.assign(body, { checkout_page_id: id, products: products().filter((product) => product.id) });
      if (coupon && kind !== 'charge') body.coupon = coupon;
      const facts = receiptFacts(method as ReceiptFacts['method'], option, String(body.customer_email ?? ''));
      // The service charges exactly the total shown, or nothing (409 when the price moved since it was quoted).
      if (facts.amountCents !== undefined) body.expected_total = facts.amountCents / 100;
      const answer = await postJson(kind === 'page' ? '/api/v1/payments' : `/api/v1/${resource}/${id}/pay`, body);
      await handle(answer, facts);
    } finally {
      button.disabled = false;
      // The outcome keeps its announcement; after an error the summary speaks instead.
      if (byId('result')!.hidden) announce('');
    }
  }

  /** What the success view says, as far as the page knows it: the rule makes value × number the charged total. */
  function receiptFacts(method: ReceiptFacts['method'], option: PlanOption, email: string): ReceiptFacts {
    const chosen = method === 'credit_card' && twoCards() && shares ? [shareOption(0)!, shareOption(1)!] : [option];
    return {
      method,
      amountCents: chosen.reduce((sum, each) => sum + optionTotalCents(each), 0),
      ...(method === 'credit_card'
        ? { cards: chosen.map((each) => ({ count: each.number, valueCents: toCents(each.value) })) }
        : {}),
      ...(kind === 'charge' ? { orderNumber: id.slice(0, 8).toUpperCase() } : {}),
      ...(email ? { email } : {}),
    };
  }

  async function handle(answer: ApiAnswer, facts: ReceiptFacts): Promise<void> {
    if (answer.status !== 200) {
      const problem = payError(answer);
      if (problem.requote) {
        await reloadSummaryLines();
        await refreshPlans();
      }
      return problem.pending
        ? showPending(problem.message, kind === 'charge' ? `/pay/charges/${id}/done` : undefined)
        : showErrors([problem]);
    }
    const result = answer.body;
    const chargeDone = kind === 'charge' ? { ...settings, redirectUrl: result.redirect_url ?? '' } : settings;
    if (result.pix_qr_code) return showPix(chargeDone, result, facts);
    if (result.bank_slip_url) return showBoleto(chargeDone, result.bank_slip_url, facts);
    if (kind === 'charge' && result.status !== 'paid') {
      return showErrors([
        {
          field: 'card0-number',
          message:
            result.status === 'failed'
              ? 'O cartão foi recusado pelo banco emissor. Confira os dados ou use outro cartão.'
              : 'O pagamento está em análise.',
        },
      ]);
    }
    // A cart's answer names its payments by UID, whose status carries the order number; a page's only by gateway code.
    const first = result.payments?.[0];
    const paid = {
      ...facts,
      ...(typeof first === 'string' ? { paymentCode: first } : {}),
    };
    const statusUid = typeof first === 'object' && first ? String(first.id) : undefined;
    showPaid(
      chargeDone,
      result.order_status === 'paid' || result.status === 'paid' ? result.offer : undefined,
      paid,
      statusUid,
    );
  }
}

/** The total beside the pay button and at the foot of the order summary: one figure, the chosen option's. */
function showTotal(text: string): void {
  for (const id of ['total', 'summary-total']) byId(id)!.textContent = text;
}
