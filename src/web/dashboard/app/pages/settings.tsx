import { useEffect, useState } from 'preact/hooks';
import { answer, dashboardClient, type Answer, type Body } from '../client.ts';
import { useDashboard } from '../context.ts';
import type { MessageKey } from '../i18n.ts';
import { errorText, Loading, PageTitle, useLoad } from '../ui.tsx';
import { GatewayCredentials } from './gateway-credentials.tsx';

type Form = Record<string, string>;

type CompanySettings = Answer<'/dashboard/settings', 'get'>['companies'][number];
type CompanySettingsChange = Body<'/dashboard/settings/companies/{company_id}', 'patch'>;

function formOf(company: CompanySettings): Form {
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  return {
    name: company.name,
    legal_name: text(company.legal_name),
    document: text(company.document),
    street: text(company.address.street),
    street_number: text(company.address.street_number),
    complement: text(company.address.complement),
    district: text(company.address.district),
    postal_code: text(company.address.postal_code),
    city: company.address.city,
    state: text(company.address.state),
    time_zone: company.time_zone,
    pix_expiration_minutes: text(company.pix_expiration_minutes),
    boleto_due_days: text(company.boleto_due_days),
    fine_type: company.fine_terms.fine_type,
    fine: text(company.fine_terms.fine),
    fine_tax: text(company.fine_terms.fine_tax),
    late_interest: text(company.fine_terms.late_interest),
    late_interest_tax: text(company.fine_terms.late_interest_tax),
  };
}

/** The change to send: empty optional texts are left out (the service keeps them), numbers as numbers. */
function changeOf(form: Form): CompanySettingsChange {
  const given = (key: string) => form[key]!.trim() || undefined;
  return {
    name: form.name!.trim(),
    legal_name: given('legal_name'),
    document: given('document'),
    city: given('city'),
    state: given('state')?.toUpperCase(),
    time_zone: form.time_zone!.trim(),
    pix_expiration_minutes: Number(form.pix_expiration_minutes),
    boleto_due_days: Number(form.boleto_due_days),
    address: {
      street: form.street!.trim(),
      street_number: form.street_number!.trim(),
      complement: form.complement!.trim(),
      district: form.district!.trim(),
      postal_code: form.postal_code!.replace(/\D/g, ''),
    },
    fine_terms: {
      fine_type: form.fine_type === 'fixed' ? 'fixed' : 'percentage',
      fine: Number(form.fine || 0),
      fine_tax: Number(form.fine_tax || 0),
      late_interest: Number(form.late_interest || 0),
      late_interest_tax: Number(form.late_interest_tax || 0),
    },
  };
}

export function SettingsPage() {
  const { t, can } = useDashboard();
  const state = useLoad(() => answer(dashboardClient.GET('/dashboard/settings')), []);
  const [companyId, setCompanyId] = useState<number>();
  const companies = state.data?.companies ?? [];
  const company = companies.find((candidate) => candidate.id === companyId) ?? companies[0];
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('settings.title')}</PageTitle>
      <Loading state={state} />
      {companies.length > 1 && (
        <label class="inline">
          {t('settings.company')}
          <select value={company?.id} onChange={(e) => setCompanyId(Number(e.currentTarget.value))}>
            {companies.map((option) => (
              <option key={option.id} value={option.id}>
                {option.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {company && <CompanyForm key={company.id} company={company} onSaved={state.reload} />}
      {company && can('settings.manage') && <GatewayCredentials companyId={company.id} />}
    </section>
  );
}

function CompanyForm({ company, onSaved }: { company: CompanySettings; onSaved(): void }) {
  const { t, can } = useDashboard();
  const editable = can('settings.manage');
  const [form, setForm] = useState<Form>(() => formOf(company));
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  useEffect(() => setForm(formOf(company)), [company]);
  const field = (key: string, label: MessageKey, attributes: Record<string, unknown> = {}) => (
    <label class="grow">
      {t(label)}
      <input
        name={key}
        value={form[key]}
        disabled={!editable}
        onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })}
        {...attributes}
      />
    </label>
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    setMessage(undefined);
    try {
      await answer(
        dashboardClient.PATCH('/dashboard/settings/companies/{company_id}', {
          params: { path: { company_id: company.id } },
          body: changeOf(form),
        }),
      );
      setMessage({ ok: true, text: t('settings.saved') });
      onSaved();
    } catch (caught) {
      setMessage({ ok: false, text: errorText(caught) });
    }
  };
  const number = { type: 'number', inputMode: 'decimal', min: 0 };
  return (
    <form onSubmit={submit}>
      {!editable && <p class="muted">{t('settings.readOnly')}</p>}
      <fieldset class="card" disabled={!editable}>
        <legend>{t('settings.company')}</legend>
        <div class="row">
          {field('name', 'settings.name', { required: true, maxLength: 255 })}
          {field('legal_name', 'settings.legalName', { maxLength: 255 })}
          {field('document', 'settings.document', { maxLength: 14, autoComplete: 'off' })}
          {field('time_zone', 'settings.timeZone', { required: true, maxLength: 64 })}
        </div>
      </fieldset>
      <fieldset class="card" disabled={!editable}>
        <legend>{t('settings.address')}</legend>
        <div class="row">
          {field('street', 'settings.street', { maxLength: 255, autoComplete: 'address-line1' })}
          {field('street_number', 'settings.number', { maxLength: 20 })}
          {field('complement', 'settings.complement', { maxLength: 255, autoComplete: 'address-line2' })}
          {field('district', 'settings.district', { maxLength: 100 })}
          {field('postal_code', 'settings.postalCode', { inputMode: 'numeric', autoComplete: 'postal-code' })}
          {field('city', 'settings.city', { maxLength: 100, autoComplete: 'address-level2' })}
          {field('state', 'settings.state', { maxLength: 2, autoComplete: 'address-level1' })}
        </div>
      </fieldset>
      <fieldset class="card" disabled={!editable}>
        <legend>{t('settings.payments')}</legend>
        <div class="row">
          {field('pix_expiration_minutes', 'settings.pixExpiry', { ...number, min: 1, max: 43200, step: 1 })}
          {field('boleto_due_days', 'settings.boletoDays', { ...number, max: 365, step: 1 })}
        </div>
      </fieldset>
      <fieldset class="card" disabled={!editable}>
        <legend>{t('settings.fines')}</legend>
        <div class="row">
          <label class="grow">
            {t('settings.fineType')}
            <select
              name="fine_type"
              value={form.fine_type}
              onChange={(e) => setForm({ ...form, fine_type: e.currentTarget.value })}
            >
              <option value="percentage">{t('settings.finePercentage')}</option>
              <option value="fixed">{t('settings.fineFixed')}</option>
            </select>
          </label>
          {field('fine', 'settings.fine', { ...number, step: 0.01 })}
          {field('fine_tax', 'settings.fineTax', { ...number, step: 0.0001 })}
          {field('late_interest', 'settings.lateInterest', { ...number, step: 0.01 })}
          {field('late_interest_tax', 'settings.lateInterestTax', { ...number, step: 0.0001 })}
        </div>
      </fieldset>
      {message && (
        <p class={`alert ${message.ok ? 'success' : 'error'}`} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      {editable && <button type="submit">{t('common.save')}</button>}
    </form>
  );
}
