import { isValidCnpj } from '../../brazil/documents.ts';
import { hasAtMostTwoDecimals } from '../../lib/money.ts';
import { isValidAllowedHost } from '../accounts/index.ts';
import { documentUrlProblem, notificationEndpointProblems } from './merchant-document.endpoints.ts';
import { BASIC_AUTH_RECEIVERS, type CompanyDocument, type MerchantDocument } from './merchant-document.schema.ts';

/** A problem the schema cannot express: a rule across fields, a reference, or a limit of a column type. */
export type Problem = { path: string; message: string };

/**
 * Cross-field rules of a schema-valid document. Product external ids, plan refs, coupon codes and page
 * slugs must be unique across the whole document because the apply result maps them without a company.
 */
export function documentProblems(document: MerchantDocument): Problem[] {
  const problems: Problem[] = [];
  const report = (path: string, message: string) => problems.push({ path, message });

  allowedHostProblems(document.account.allowed_hosts ?? [], 'account.allowed_hosts', report);

  const primaries = document.companies.filter((company) => company.primary === true).length;
  const defaultPrimary = document.companies.length === 1 && document.companies[0]!.primary === undefined;
  if (primaries !== 1 && !defaultPrimary)
    report('companies', `exactly one company must have primary: true, found ${primaries}`);

  const unique = {
    company: new UniqueNames(report, 'company slug'),
    product: new UniqueNames(report, 'product external_id'),
    plan: new UniqueNames(report, 'payment plan ref'),
    coupon: new UniqueNames(report, 'coupon code'),
    checkoutPage: new UniqueNames(report, 'checkout page slug'),
    cartPage: new UniqueNames(report, 'cart page slug'),
    // A receiver finds the company by its username, so one username names one company.
    webhookUsername: new UniqueNames(report, 'webhook username (receiver: username)'),
  };
  document.companies.forEach((company, c) => {
    const at = `companies[${c}]`;
    unique.company.add(`${at}.slug`, company.slug);
    company.products?.forEach((product, i) =>
      unique.product.add(`${at}.products[${i}].external_id`, product.external_id),
    );
    company.payment_plans?.forEach((plan, i) => unique.plan.add(`${at}.payment_plans[${i}].ref`, plan.ref));
    company.coupons?.forEach((coupon, i) => unique.coupon.add(`${at}.coupons[${i}].code`, coupon.code.toUpperCase()));
    company.checkout_pages?.forEach((page, i) => unique.checkoutPage.add(`${at}.checkout_pages[${i}].slug`, page.slug));
    company.cart_pages?.forEach((page, i) => unique.cartPage.add(`${at}.cart_pages[${i}].slug`, page.slug));
    company.webhook_credentials?.forEach((credential, i) => {
      if (credential.username !== undefined)
        unique.webhookUsername.add(
          `${at}.webhook_credentials[${i}].username`,
          `${credential.receiver}: ${credential.username}`,
        );
    });
    companyProblems(company, at, report);
  });
  notificationEndpointProblems(document, report);
  return problems;
}

type Report = (path: string, message: string) => void;

/** The account's allowed hosts (the merchant file's `account.allowed_hosts`, the dashboard's developers page). */
export function allowedHostProblems(hosts: readonly string[], at: string, report: Report): void {
  hosts.forEach((host, i) => {
    const port = /:(\d+)$/.exec(host)?.[1];
    if (!isValidAllowedHost(host)) report(`${at}[${i}]`, `"${host}" is not a host name, *.wildcard or host:port`);
    else if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65_535))
      report(`${at}[${i}]`, `"${host}" has a port outside 1 to 65535`);
  });
}

/** A company's CNPJ (numeric or alphanumeric) and time zone, wherever they are set. */
export function companyDataProblems(
  company: { document?: string; time_zone?: string },
  at: string,
  report: Report,
): void {
  const zoneProblem = company.time_zone === undefined ? undefined : timeZoneProblem(company.time_zone);
  if (zoneProblem) report(`${at}.time_zone`, zoneProblem);
  if (company.document !== undefined && !isValidCnpj(company.document)) report(`${at}.document`, 'is not a valid CNPJ');
}

/** Fine and late-interest terms: amounts in major units with two decimals, rates with four. */
export function fineTermProblems(
  terms: { fine?: number; fine_tax?: number; late_interest?: number; late_interest_tax?: number },
  at: string,
  report: Report,
): void {
  for (const field of ['fine', 'late_interest'] as const) checkMoney(report, `${at}.${field}`, terms[field]);
  for (const field of ['fine_tax', 'late_interest_tax'] as const) checkPercent(report, `${at}.${field}`, terms[field]);
}

class UniqueNames {
  private readonly seen = new Set<string>();
  constructor(
    private readonly report: Report,
    private readonly what: string,
  ) {}
  add(path: string, name: string): void {
    if (this.seen.has(name)) this.report(path, `duplicate ${this.what} "${name}"`);
    this.seen.add(name);
  }
}

function companyProblems(company: CompanyDocument, at: string, report: Report): void {
  companyDataProblems(company, at, report);

  const gateways = new UniqueNames(report, 'gateway');
  company.gateways?.forEach((gateway, i) => gateways.add(`${at}.gateways[${i}].gateway`, gateway.gateway));
  webhookCredentialProblems(company, at, report);
  scheduleProblems(company, at, report);
  const sellers = new UniqueNames(report, 'seller name');
  company.sellers?.forEach((seller, i) => sellers.add(`${at}.sellers[${i}].name`, seller.name));
  catalogProblems(company, at, report);
  pageProblems(company, at, report);
}

function webhookCredentialProblems(company: CompanyDocument, at: string, report: Report): void {
  const receivers = new UniqueNames(report, 'webhook receiver');
  company.webhook_credentials?.forEach((credential, i) => {
    const path = `${at}.webhook_credentials[${i}]`;
    receivers.add(`${path}.receiver`, credential.receiver);
    const basic = (BASIC_AUTH_RECEIVERS as readonly string[]).includes(credential.receiver);
    if (basic) {
      if (credential.username === undefined)
        report(`${path}.username`, `is required for the ${credential.receiver} receiver (Basic auth)`);
      if (credential.password === undefined)
        report(`${path}.password`, `is required for the ${credential.receiver} receiver (Basic auth)`);
      if (credential.secret !== undefined)
        report(`${path}.secret`, `is not used by the ${credential.receiver} receiver; use password`);
    } else {
      if (credential.secret === undefined)
        report(`${path}.secret`, `is required for the ${credential.receiver} receiver (signing secret)`);
      for (const field of ['username', 'password'] as const) {
        if (credential[field] !== undefined)
          report(`${path}.${field}`, `is not used by the ${credential.receiver} receiver; use secret`);
      }
    }
  });
}

function scheduleProblems(company: CompanyDocument, at: string, report: Report): void {
  const schedules = (company.schedules ?? []).map((schedule, i) => ({ ...schedule, path: `${at}.schedules[${i}]` }));
  for (const schedule of schedules) {
    if (schedule.ends_at <= schedule.starts_at) report(`${schedule.path}.ends_at`, 'must be later than starts_at');
  }
  // Zero-padded HH:MM compares correctly as text.
  const ordered = schedules
    .filter((s) => s.ends_at > s.starts_at)
    .sort((a, b) => a.weekday - b.weekday || a.starts_at.localeCompare(b.starts_at));
  ordered.forEach((schedule, i) => {
    const previous = ordered[i - 1];
    if (previous && previous.weekday === schedule.weekday && schedule.starts_at < previous.ends_at) {
      report(schedule.path, `overlaps ${previous.path} on weekday ${schedule.weekday}`);
    }
  });
}

function catalogProblems(company: CompanyDocument, at: string, report: Report): void {
  const productIds = new Set(company.products?.map((product) => product.external_id));
  company.products?.forEach((product, i) => {
    const path = `${at}.products[${i}]`;
    checkMoney(report, `${path}.value`, product.value);
    checkUrl(report, `${path}.image`, product.image);
    if (product.subscription && product.interval === undefined)
      report(`${path}.interval`, 'is required for a subscription product (day, week, month or year)');
  });

  company.payment_plans?.forEach((plan, i) => {
    const path = `${at}.payment_plans[${i}]`;
    checkMoney(report, `${path}.min_installment`, plan.min_installment);
    fineTermProblems(plan, path, report);
    const installments = new UniqueNames(report, 'installments');
    plan.taxes?.forEach((tax, t) => {
      const taxPath = `${path}.taxes[${t}]`;
      installments.add(`${taxPath}.installments`, String(tax.installments));
      if (tax.installments > (plan.max_installments ?? 1))
        report(`${taxPath}.installments`, `exceeds max_installments (${plan.max_installments ?? 1})`);
      checkMoney(report, `${taxPath}.fixed`, tax.fixed);
      checkPercent(report, `${taxPath}.percentage`, tax.percentage);
    });
  });

  company.coupons?.forEach((coupon, i) => {
    const path = `${at}.coupons[${i}]`;
    if (coupon.type === 'percentage') {
      if (coupon.value > 100) report(`${path}.value`, 'a percentage coupon must be at most 100');
      checkPercent(report, `${path}.value`, coupon.value);
    } else {
      checkMoney(report, `${path}.value`, coupon.value);
    }
    coupon.product_external_ids?.forEach((ref, r) =>
      checkRef(report, `${path}.product_external_ids[${r}]`, 'product', ref, productIds, company.slug),
    );
  });
}

function pageProblems(company: CompanyDocument, at: string, report: Report): void {
  const productIds = new Set(company.products?.map((product) => product.external_id));
  const planRefs = new Set(company.payment_plans?.map((plan) => plan.ref));
  const pages = [
    ...(company.checkout_pages ?? []).map((page, i) => ({ page, path: `${at}.checkout_pages[${i}]` })),
    ...(company.cart_pages ?? []).map((page, i) => ({ page, path: `${at}.cart_pages[${i}]` })),
  ];
  for (const { page, path } of pages) {
    checkUrl(report, `${path}.logo`, page.logo);
    checkUrl(report, `${path}.redirect_url`, page.redirect_url);
    const enabledPlans = new UniqueNames(report, 'payment plan');
    page.payment_plans?.forEach((ref, r) => {
      enabledPlans.add(`${path}.payment_plans[${r}]`, ref);
      checkRef(report, `${path}.payment_plans[${r}]`, 'payment plan', ref, planRefs, company.slug);
    });
    const fallback = page.default_payment_plan;
    if (fallback !== undefined) {
      checkRef(report, `${path}.default_payment_plan`, 'payment plan', fallback, planRefs, company.slug);
      if (page.payment_plans && !page.payment_plans.includes(fallback))
        report(`${path}.default_payment_plan`, `"${fallback}" is not among the page's payment_plans`);
    }
    if ('upsell_product' in page && page.upsell_product !== undefined) {
      checkRef(report, `${path}.upsell_product`, 'product', page.upsell_product, productIds, company.slug);
    }
    if ('products' in page) {
      const listed = new UniqueNames(report, 'page product');
      page.products?.forEach((item, p) => {
        listed.add(`${path}.products[${p}].product`, item.product);
        checkRef(report, `${path}.products[${p}].product`, 'product', item.product, productIds, company.slug);
      });
    }
  }
}

function checkRef(
  report: Report,
  path: string,
  what: string,
  ref: string,
  known: Set<string>,
  companySlug: string,
): void {
  if (!known.has(ref)) report(path, `unknown ${what} "${ref}" (not declared in company "${companySlug}")`);
}

function checkMoney(report: Report, path: string, value: number | undefined): void {
  if (value !== undefined && !hasAtMostTwoDecimals(value)) report(path, `${value} has more than two decimals`);
}

/** numeric(9, 4) would round a fifth decimal silently. */
function checkPercent(report: Report, path: string, value: number | undefined): void {
  if (value !== undefined && Math.abs(value * 10_000 - Math.round(value * 10_000)) > 1e-6)
    report(path, `${value} has more than four decimals`);
}

function checkUrl(report: Report, path: string, url: string | undefined): void {
  const problem = url === undefined ? undefined : documentUrlProblem(url);
  if (problem) report(path, problem);
}

/**
 * The time zones a company may have: the canonical IANA names Intl lists, plus UTC. JavaScript (order
 * dates, boleto due dates) and PostgreSQL (`AT TIME ZONE` in order_counts and the order list) read each
 * of these the same way: every one is in pg_timezone_names on PGlite and PostgreSQL 15, and none but UTC
 * is in pg_timezone_abbrevs. Refused: names PostgreSQL does not know (US/Pacific-New), names it reads as
 * a fixed-offset abbreviation (CET, EET, WET, MET, EST, MST, HST), and other spellings; current Area/City names
 * Node still lists under an older spelling are accepted (isAcceptedTimeZone).
 */
const ACCEPTED_TIME_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/** An Area/City name of the IANA database's geographic areas (not the legacy `US/…` or `Etc/…` forms). */
const AREA_CITY =
  /^(Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)\/[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z][A-Za-z0-9_+-]*)?$/;

export function isAcceptedTimeZone(name: string): boolean {
  if (ACCEPTED_TIME_ZONES.has(name)) return true;
  // A current Area/City name Node's list still spells the old way (Asia/Kolkata for Asia/Calcutta, Europe/Kyiv):
  // the same zone for Intl and, as the per-engine test checks, a zone name PostgreSQL knows.
  return AREA_CITY.test(name) && ACCEPTED_TIME_ZONES.has(canonicalTimeZone(name) ?? '');
}

function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function timeZoneProblem(name: string): string | undefined {
  if (isAcceptedTimeZone(name)) return undefined;
  const canonical = canonicalTimeZone(name);
  if (canonical === undefined) return `"${name}" is not an IANA time zone`;
  // A hint only for another spelling of an Area/City name: CET resolving to Europe/Brussels would mislead.
  const hint =
    isAcceptedTimeZone(canonical) && (name.includes('/') || name.toLowerCase() === canonical.toLowerCase())
      ? `; write "${canonical}"`
      : '';
  return `"${name}" is not accepted: use a canonical IANA time zone name (Area/City, as America/Sao_Paulo) or UTC${hint}`;
}
