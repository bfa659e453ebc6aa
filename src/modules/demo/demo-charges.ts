import type { Database } from '../../db/database.ts';
import { deriveSecret } from '../../lib/crypto.ts';

export type DemoCharges = { open: string; overdue: string; customer_id: number };

const DAY_MS = 86_400_000;

function derivedUuid(masterKey: Buffer, purpose: string): string {
  const bytes = Buffer.from(deriveSecret(masterKey, purpose, 16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** An open charge due in a week and one ten days overdue, for one demo customer. Created once. */
export async function ensureDemoCharges(
  database: Database,
  masterKey: Buffer,
  accountId: string,
  companyId: number,
  products: Record<string, number>,
  now: Date,
): Promise<DemoCharges> {
  return database.db.transaction().execute(async (trx) => {
    const customer = await trx
      .insertInto('customers')
      .values({
        account_id: accountId,
        company_id: companyId,
        email: 'cliente.demo@example.com',
        name: 'Cliente Demo',
        phone: '11987654321',
        identification: '52998224725',
        street: 'Avenida Paulista',
        number: '1000',
        neighborhood: 'Bela Vista',
        zipcode: '01310100',
        city: 'São Paulo',
        state: 'SP',
      })
      .onConflict((oc) => oc.columns(['account_id', 'company_id', 'email']).doUpdateSet({ updated_at: now }))
      .returning('id')
      .executeTakeFirstOrThrow();
    const boleto = await trx
      .selectFrom('payment_plans')
      .select('id')
      .where('account_id', '=', accountId)
      .where('company_id', '=', companyId)
      .where('ref', '=', 'boleto')
      .executeTakeFirst();
    const charge = async (
      purpose: string,
      dueInDays: number,
      lines: Array<{ product: string; quantity: number }>,
      freightCents: number,
    ) => {
      const uid = derivedUuid(masterKey, `demo-charge:${purpose}`);
      const existing = await trx.selectFrom('orders').select('uid').where('uid', '=', uid).executeTakeFirst();
      if (existing) return uid;
      const rows = await trx
        .selectFrom('products')
        .select(['id', 'name', 'unit_name', 'value_cents'])
        .where('account_id', '=', accountId)
        .where(
          'id',
          'in',
          lines.map((line) => products[line.product]!),
        )
        .execute();
      const items = lines.map((line) => {
        const product = rows.find((row) => row.id === products[line.product])!;
        return { product, quantity: line.quantity, total: product.value_cents * line.quantity };
      });
      const subtotal = items.reduce((sum, item) => sum + item.total, 0);
      const order = await trx
        .insertInto('orders')
        .values({
          uid,
          account_id: accountId,
          company_id: companyId,
          customer_id: customer.id,
          source: 'charge',
          status: 'pending',
          payment_plan_id: boleto?.id ?? null,
          subtotal_cents: subtotal,
          freight_cents: freightCents,
          total_cents: subtotal + freightCents,
          date: isoDate(new Date(now.getTime() - Math.max(0, -dueInDays + 5) * DAY_MS)),
          due_date: isoDate(new Date(now.getTime() + dueInDays * DAY_MS)),
          observation: purpose === 'open' ? 'Pagamento referente ao curso' : 'Mentoria e livro (vencida)',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('order_items')
        .values(
          items.map((item) => ({
            account_id: accountId,
            order_id: order.id,
            product_id: item.product.id,
            product_name: item.product.name,
            unit_name: item.product.unit_name,
            quantity: item.quantity,
            unit_value_cents: item.product.value_cents,
            total_cents: item.total,
          })),
        )
        .execute();
      await trx
        .insertInto('order_events')
        .values({
          account_id: accountId,
          order_id: order.id,
          type: 'order.created',
          to_status: 'pending',
          cause: 'demo seed: charge created',
        })
        .execute();
      return uid;
    };
    return {
      open: await charge('open', 7, [{ product: 'course', quantity: 1 }], 0),
      overdue: await charge(
        'overdue',
        -10,
        [
          { product: 'mentoring', quantity: 1 },
          { product: 'book', quantity: 2 },
        ],
        1500,
      ),
      customer_id: customer.id,
    };
  });
}
