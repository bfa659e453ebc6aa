/**
 * Every field a resource table of the specification lists is a required property of the documented response
 * schema (null or [] when it has no value), so a client written from the specification never meets a missing
 * key. Fields with a presence rule written in the specification are the exceptions, each quoted here and checked
 * against the specification's text.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { publishedDocument } from '../../scripts/openapi-document.ts';
import { readSpecResources, type SpecField, type SpecResource } from './spec-tables.ts';

type Schema = {
  $ref?: string;
  type?: string | string[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
};
type Document = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
};

/** Where each resource is answered: `METHOD path status`, then the steps into the body (`[]` = array items). */
const ANSWERED_AT: Record<string, string[][]> = {
  CheckoutPageSummary: [['GET /checkout_pages 200', '[]']],
  CheckoutPageShow: [['GET /checkout_pages/{id} 200']],
  CartShow: [['GET /carts/{id} 200']],
  ChargeShow: [['GET /charges/{id} 200']],
  OrderData: [['GET /orders/{id} 200'], ['POST /orders 201'], ['GET /orders 200', 'data', '[]']],
  OrdersIndex: [['GET /orders 200']],
  ProductSummary: [['GET /products 200', '[]']],
  ProductCreateResponse: [['POST /products 200']],
  ProductShow: [['GET /products/{id} 200']],
  CustomerResponse: [['POST /customers 200']],
  Coupon: [['GET /coupons/{code}/validate 200']],
  PaymentPlanOptions: ['credit_card', 'bank_slip', 'pix'].map((method) => ['GET /payment_plans 200', method, '[]']),
  PaymentResult: [['POST /payments 200']],
  UpsellResult: [['POST /upsell 200']],
  CartPayResult: [['POST /carts/{id}/pay 200']],
  ChargePayResult: [['POST /charges/{id}/pay 200']],
  PaymentStatus: [
    ['GET /carts/{id}/payments 200', '[]'],
    ['GET /checkout_pages/{id}/payments 200', '[]'],
  ],
  LastPayment: [['GET /charges/{id}/last_payment 200']],
};

/** Fields the specification lets a response leave out, with the words that say so. */
const PIX = ['pix_qr_code', 'pix_qr_code_url', 'pix_expires_at'];
const PRESENCE_RULES: Record<string, Record<string, string>> = {
  CheckoutPageShow: { upsell_product: 'optional' },
  ProductCreateResponse: { tax_configuration: 'if set', financial_account: 'if set' },
  ProductShow: { weight: 'present only when set', image: 'present only when attached' },
  PaymentResult: {
    bank_slip_url: 'only for bank_slip',
    ...Object.fromEntries(PIX.map((field) => [field, 'only for pix'])),
    redirect_url: 'when a post-payment redirect is configured on the checkout page',
    offer: 'only when the checkout page has an upsell and the payment succeeded',
  },
  UpsellResult: {
    bank_slip_url: 'only if the original order used bank slip',
    ...Object.fromEntries(PIX.map((field) => [field, 'only if the original order used pix'])),
  },
  CartPayResult: Object.fromEntries(
    ['bank_slip_url', ...PIX].map((field) => [field, 'the same presence rules as PaymentResult']),
  ),
  ChargePayResult: Object.fromEntries(
    ['status', 'bank_slip_url', ...PIX].map((field) => [
      field,
      'Only the fields relevant to the payment method are included',
    ]),
  ),
};

describe('response schemas against the specification’s resource tables', () => {
  let document: Document;
  let resources: Map<string, SpecResource>;

  before(async () => {
    document = (await publishedDocument()) as Document;
    resources = readSpecResources();
  });

  const resolve = (schema: Schema): Schema => {
    if (schema.$ref) return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!);
    // A nullable value is `anyOf [X, null]`: its shape is X's.
    const branches = schema.anyOf?.filter((branch) => branch.type !== 'null');
    return branches?.length === 1 ? resolve(branches[0]!) : schema;
  };

  const answered = (where: string[]): Schema => {
    const [operation, ...steps] = where;
    const [method, path, status] = operation!.split(' ');
    const response = document.paths[path!]?.[method!.toLowerCase()]?.responses[status!];
    assert.ok(response, `${operation} is not documented`);
    let schema = resolve(response.content!['application/json']!.schema);
    for (const step of steps) schema = resolve(step === '[]' ? schema.items! : schema.properties![step]!);
    return schema;
  };

  /** The problems of one schema against the fields the specification lists, inner fields included. */
  const problems = (resource: string, schema: Schema, fields: SpecField[], at: string): string[] =>
    fields.flatMap((field) => {
      const name = `${at}${field.name}`;
      const property = schema.properties?.[field.name];
      if (!property) return [`${name} is not in the schema`];
      const exempt = at === '' && PRESENCE_RULES[resource]?.[field.name] !== undefined;
      const missing = !exempt && !schema.required?.includes(field.name) ? [`${name} is not required`] : [];
      if (!field.fields.length) return missing;
      const inner = resolve(property);
      const shape = inner.items ? resolve(inner.items) : inner;
      return [...missing, ...problems(resource, shape, field.fields, `${name}${inner.items ? '[].' : '.'}`)];
    });

  test('every resource of the specification is located in the document', () => {
    const documented = [...resources.keys()].filter((name) => !['Card', 'Other'].includes(name));
    assert.deepEqual(documented.sort(), Object.keys(ANSWERED_AT).sort());
  });

  test('each presence rule kept is written in the specification', () => {
    for (const [resource, rules] of Object.entries(PRESENCE_RULES))
      for (const [field, words] of Object.entries(rules)) {
        assert.ok(resources.get(resource)!.text.includes(words), `${resource}.${field}: "${words}" not in the spec`);
      }
  });

  for (const resource of Object.keys(ANSWERED_AT)) {
    test(`${resource}: every listed field is documented as present`, () => {
      const spec = resources.get(resource)!;
      // CheckoutPageShow adds to the summary's fields.
      const fields =
        resource === 'CheckoutPageShow'
          ? [...resources.get('CheckoutPageSummary')!.fields, ...spec.fields]
          : spec.fields;
      for (const where of ANSWERED_AT[resource]!) {
        assert.deepEqual(problems(resource, answered(where), fields, ''), [], where.join(' → '));
      }
    });
  }
});
