import type { MerchantDocument } from '../merchant-file/index.ts';

/** Credentials of the demo merchants are derived from the master key, never written in the source. */
export type DemoSecrets = (purpose: string) => string;

const IMAGE = 'https://images.example.com/demo';

/** The demo merchant: enough configuration to call every endpoint of the API. */
export function demoMerchantDocument(secret: DemoSecrets): MerchantDocument {
  return {
    account: { name: 'Loja Demo', slug: 'demo', allowed_hosts: ['localhost', '127.0.0.1', '*.demo.localhost'] },
    companies: [
      {
        slug: 'loja-demo',
        name: 'Loja Demo LTDA',
        primary: true,
        legal_name: 'Loja Demo Comercio Digital LTDA',
        document: '11222333000181',
        city: 'SAO PAULO',
        state: 'SP',
        time_zone: 'America/Sao_Paulo',
        pix_key: '11222333000181',
        pix_expiration_minutes: 30,
        boleto_due_days: 3,
        gateways: [
          {
            gateway: 'gateway_a',
            public_key: `pk_test_${secret('gateway_a.public').slice(0, 24)}`,
            secret_key: `sk_test_${secret('gateway_a.secret')}`,
          },
          {
            gateway: 'gateway_b',
            public_key: `pk_test_${secret('gateway_b.public').slice(0, 24)}`,
            secret_key: `sk_test_${secret('gateway_b.secret')}`,
          },
          {
            gateway: 'gateway_c',
            public_key: `ek_test_${secret('gateway_c.public').slice(0, 24)}`,
            secret_key: `ak_test_${secret('gateway_c.secret')}`,
          },
          { gateway: 'bank', secret_key: secret('bank.secret') },
        ],
        webhook_credentials: [
          { receiver: 'gateway_a', username: 'loja-demo-gateway-a', password: secret('webhook.gateway_a') },
          { receiver: 'gateway_b', secret: `whsec_${secret('webhook.gateway_b')}` },
          { receiver: 'bank', username: 'loja-demo-bank', password: secret('webhook.bank') },
          { receiver: 'invoicing', username: 'loja-demo-invoicing', password: secret('webhook.invoicing') },
        ],
        schedules: [1, 2, 3, 4, 5].flatMap((weekday) => [
          { weekday, starts_at: '09:00', ends_at: '12:00', slot_minutes: 60 },
          { weekday, starts_at: '14:00', ends_at: '18:00', slot_minutes: 60 },
        ]),
        sellers: [{ name: 'Ana Vendas' }],
        products: [
          {
            external_id: 'ebook',
            name: 'E-book Finanças Pessoais',
            value: 49.9,
            product_type: 'digital',
            description: 'Guia prático em PDF',
            image: `${IMAGE}/ebook.png`,
          },
          {
            external_id: 'course',
            name: 'Curso Investimentos',
            value: 297,
            product_type: 'digital',
            description: 'Curso online com 40 aulas',
          },
          {
            external_id: 'bonus',
            name: 'Planilha Bônus',
            value: 19.9,
            product_type: 'digital',
            description: 'Oferta de um clique',
          },
          {
            external_id: 'membership',
            name: 'Clube Mensal',
            value: 29.9,
            product_type: 'service',
            subscription: true,
            interval: 'month',
            interval_count: 1,
          },
          {
            external_id: 'mentoring',
            name: 'Mentoria Individual',
            value: 150,
            product_type: 'service',
            description: 'Uma hora com um especialista',
          },
          {
            external_id: 'book',
            name: 'Livro Impresso',
            value: 79.9,
            product_type: 'physical',
            weight: 450,
            ncm: '49019900',
          },
        ],
        payment_plans: [
          {
            ref: 'card',
            name: 'Cartão de crédito',
            payment_method: 'credit_card',
            max_installments: 12,
            min_installment: 5,
            taxes: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => ({
              installments: n,
              fixed: n >= 7 ? 0.5 : 0,
              percentage: Number((1.79 + (n - 2) * 0.2).toFixed(2)),
            })),
          },
          { ref: 'pix', name: 'Pix', payment_method: 'pix' },
          {
            ref: 'boleto',
            name: 'Boleto',
            payment_method: 'bank_slip',
            fine_type: 'percentage',
            fine_tax: 2,
            late_interest_tax: 1,
          },
        ],
        coupons: [
          { code: 'DEMO10', type: 'percentage', value: 10 },
          { code: 'DESCONTO20', type: 'price', value: 20 },
          { code: 'EXPIRADO', type: 'percentage', value: 15, expires_at: '2024-01-01T00:00:00Z' },
          { code: 'ESGOTADO', type: 'percentage', value: 50, usage_limit: 0 },
          { code: 'SOEBOOK', type: 'price', value: 5, product_external_ids: ['ebook'] },
        ],
        checkout_pages: [
          page('ebook', 'E-book Finanças Pessoais', [{ product: 'ebook' }], { enable_coupons: true }),
          page('course-upsell', 'Curso com oferta especial', [{ product: 'course' }], {
            upsell_product: 'bonus',
            redirect_url: 'https://loja.demo.localhost/obrigado',
          }),
          page('membership', 'Clube Mensal', [{ product: 'membership' }], {
            payment_plans: ['card'],
            default_payment_plan: 'card',
          }),
          page('gateway-c', 'Livro (gateway C)', [{ product: 'book', allow_quantity: true, max_quantity: 5 }], {
            gateway: 'gateway_c',
          }),
          page('two-cards', 'Curso (dois cartões)', [{ product: 'course' }], {
            enable_two_cards: true,
            payment_plans: ['card'],
            default_payment_plan: 'card',
          }),
          page('mentoring', 'Agende sua mentoria', [{ product: 'mentoring' }], {
            require_scheduling: true,
            customer_data_at: 'end',
          }),
        ],
        cart_pages: [
          {
            slug: 'carrinho',
            name: 'Carrinho',
            page_title: 'Seu carrinho',
            main_color: '#2e7d32',
            gateway: 'gateway_b',
            enable_coupons: true,
            enable_two_cards: true,
            payment_plans: ['card', 'pix', 'boleto'],
            default_payment_plan: 'pix',
          },
        ],
      },
    ],
  };
}

type PageInput = NonNullable<MerchantDocument['companies'][number]['checkout_pages']>[number];

function page(slug: string, title: string, products: PageInput['products'], extra: Partial<PageInput> = {}): PageInput {
  return {
    slug,
    page_title: title,
    main_color: '#0a7cff',
    currency: 'BRL',
    gateway: 'gateway_a',
    logo: `${IMAGE}/logo.png`,
    menus: [{ label: 'Ajuda', url: 'https://loja.demo.localhost/ajuda' }],
    integrations: {},
    customer_data_at: 'start',
    index_on_search_engines: false,
    payment_plans: ['card', 'pix', 'boleto'],
    default_payment_plan: 'pix',
    products,
    ...extra,
  };
}

/** A second merchant, so tenant isolation can be tried against the demo. */
export function otherMerchantDocument(secret: DemoSecrets): MerchantDocument {
  return {
    account: { name: 'Outra Loja', slug: 'other-demo', allowed_hosts: ['outra.example.com'] },
    companies: [
      {
        slug: 'outra-loja',
        name: 'Outra Loja LTDA',
        primary: true,
        gateways: [
          {
            gateway: 'gateway_a',
            public_key: `pk_test_${secret('other.gateway_a.public').slice(0, 24)}`,
            secret_key: `sk_test_${secret('other.gateway_a.secret')}`,
          },
        ],
        webhook_credentials: [
          { receiver: 'gateway_a', username: 'outra-loja-gateway-a', password: secret('other.webhook.gateway_a') },
        ],
        products: [{ external_id: 'kit', name: 'Kit Outra Loja', value: 120 }],
        payment_plans: [{ ref: 'pix', name: 'Pix', payment_method: 'pix' }],
        checkout_pages: [
          page('kit', 'Kit Outra Loja', [{ product: 'kit' }], { payment_plans: ['pix'], default_payment_plan: 'pix' }),
        ],
      },
    ],
  };
}
