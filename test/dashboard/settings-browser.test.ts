import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { launchChromium, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import { engines } from '../support/engines.ts';
import { VALID_ALPHANUMERIC_CNPJ } from '../support/records-fixtures.ts';
import { addDashboardUser, checkPage, signInFirstTime } from './browser-support.ts';

const [engine] = engines();

describe('dashboard settings and developer settings in Chromium', { timeout: 300_000 }, () => {
  let database: Database;
  let server: CheckoutServer;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;

  useCheckoutServer(engine!, (setup) => ({ database, server } = setup));
  before(async () => {
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  after(async () => browser?.close());

  /** Signs `email` in through the one-time link of `users add`, choosing a password. */
  const signInAs = async (email: string, role: 'owner' | 'finance') => {
    const added = await addDashboardUser(database, server.origin, email, role);
    await signInFirstTime(page, added.sign_in_url, 'cavalo correto bateria grampo');
  };

  test('an owner edits the company data, refused first by the CNPJ rule, then saved', async () => {
    await signInAs('dona.config@loja.example', 'owner');
    await page.getByRole('link', { name: 'Configurações' }).click();
    await page.getByRole('heading', { name: 'Configurações', level: 1 }).waitFor();
    await page.getByLabel('CNPJ (numérico ou alfanumérico)').fill('12ABC34501DE36');
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'CNPJ' }).waitFor();

    await page.getByLabel('CNPJ (numérico ou alfanumérico)').fill(VALID_ALPHANUMERIC_CNPJ);
    await page.getByLabel('Logradouro').fill('Av. Paulista');
    await page.getByLabel('CEP (8 dígitos)').fill('01310-100');
    await page.getByLabel(/^Fuso horário/).fill('America/Manaus');
    await page.getByLabel('Vencimento do boleto (dias)').fill('5');
    await page.getByLabel('Multa (%)').fill('2');
    await page.getByLabel('Juros ao mês (%)').fill('1');
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Configurações salvas.' }).waitFor();
    const company = await database.db
      .selectFrom('companies')
      .select(['document', 'postal_code', 'time_zone', 'boleto_due_days', 'default_fine_tax'])
      .where('slug', '=', 'loja-demo')
      .executeTakeFirst();
    assert.equal(company?.document, VALID_ALPHANUMERIC_CNPJ);
    assert.equal(company?.postal_code, '01310100');
    assert.equal(company?.time_zone, 'America/Manaus');
    assert.equal(company?.boleto_due_days, 5);
  });

  test('a gateway secret is sent once and shown back only by its last four characters', async () => {
    const form = page.getByRole('form', { name: /gateway_b/ });
    await form.getByLabel('Nova chave secreta (deixe em branco para manter)').fill('sk_test_settings_page_9876');
    await form.getByRole('button', { name: /Salvar/ }).click();
    await page.getByTestId('gw-gateway_b-status').filter({ hasText: '…9876' }).waitFor();
    assert.ok(!(await page.content()).includes('sk_test_settings_page'));
    await checkPage(page, 'settings');
  });

  test('allowed hosts and an inbound webhook secret rotation on the developers page', async () => {
    await page.getByRole('link', { name: 'Desenvolvedores' }).click();
    const hosts = page.getByLabel(/Um por linha/);
    await hosts.waitFor();
    await page.getByText('gateway_b', { exact: true }).first().waitFor();
    await hosts.fill('loja.example\nnot a host');
    await page.getByRole('form', { name: 'Hosts permitidos' }).getByRole('button', { name: 'Salvar' }).click();
    await page.getByRole('alert').filter({ hasText: 'not a host' }).waitFor();
    await hosts.fill('loja.example\n*.loja.example');
    await page.getByRole('form', { name: 'Hosts permitidos' }).getByRole('button', { name: 'Salvar' }).click();
    await page.getByRole('status').filter({ hasText: 'Configurações salvas.' }).waitFor();
    const account = await database.db
      .selectFrom('accounts')
      .select('allowed_hosts')
      .where('slug', '=', 'demo')
      .executeTakeFirstOrThrow();
    assert.deepEqual(account.allowed_hosts, ['loja.example', '*.loja.example']);

    await page.getByRole('button', { name: 'Gerar novo segredo: gateway_b' }).first().click();
    const shown = page.getByTestId('shown-once');
    await shown.waitFor();
    const secret = (await shown.innerText()).trim();
    assert.ok(secret.length >= 40);
    await page.getByText('o segredo anterior ainda é aceito').first().waitFor();
    await checkPage(page, 'developers-settings');
    await page.reload();
    await page.getByText('gateway_b', { exact: true }).first().waitFor();
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
  });

  test('finance reads the settings but cannot change them, nor see gateway or developer settings', async () => {
    await page.getByRole('button', { name: 'Sair', exact: true }).click();
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
    await signInAs('financeiro.config@loja.example', 'finance');
    assert.equal(await page.getByRole('link', { name: 'Desenvolvedores' }).count(), 0);
    await page.getByRole('link', { name: 'Configurações' }).click();
    await page.getByText('Somente proprietários e administradores alteram estas configurações.').waitFor();
    assert.equal(await page.getByLabel('CNPJ (numérico ou alfanumérico)').inputValue(), VALID_ALPHANUMERIC_CNPJ);
    assert.ok(await page.getByLabel('CNPJ (numérico ou alfanumérico)').isDisabled());
    assert.equal(await page.getByRole('heading', { name: 'Credenciais dos gateways' }).count(), 0);
    await checkPage(page, 'settings-finance');
  });
});
