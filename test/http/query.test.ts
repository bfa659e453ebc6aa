import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQueryString } from '../../src/http/query.ts';

test('bracketed numbers are hash keys; empty brackets make arrays', () => {
  assert.deepEqual(parseQueryString('products[7]=2&products[12]=1'), { products: { '7': '2', '12': '1' } });
  assert.deepEqual(parseQueryString('ids[]=a&ids[]=b&status[]=paid'), { ids: ['a', 'b'], status: ['paid'] });
  assert.deepEqual(parseQueryString('ids%5B%5D=a&q=x+y'), { ids: ['a'], q: 'x y' });
  assert.deepEqual(parseQueryString('filter[ids][]=1&filter[name]=x'), { filter: { ids: ['1'], name: 'x' } });
});

test('limits: depth, array size and parameter count stay bounded', () => {
  const deep = parseQueryString('a[b][c][d][e][f]=1') as { a: { b: { c: { d: Record<string, unknown> } } } };
  assert.equal(Object.keys(deep.a.b.c.d)[0], '[e][f]');
  // A long list stays a list (its route's maxItems refuses it with the right message), bounded by the parameter limit.
  const many = parseQueryString(Array.from({ length: 250 }, (_, i) => `ids[]=${i}`).join('&')) as { ids: string[] };
  assert.ok(Array.isArray(many.ids));
  assert.equal(many.ids.length, 200);
  assert.equal(Object.keys(parseQueryString(Array.from({ length: 500 }, (_, i) => `k${i}=1`).join('&'))).length, 200);
  assert.deepEqual(parseQueryString('__proto__[x]=1&constructor[prototype][y]=2'), {});
});

test('a query string parsed again is an independent copy (validation coerces the query in place)', () => {
  const query = 'products[7]=2&ids[]=a&q=x';
  const first = parseQueryString(query) as { products: Record<string, unknown>; ids: unknown[]; q: string };
  first.products['7'] = 2;
  first.ids.push('b');
  first.q = 'changed';
  assert.deepEqual(parseQueryString(query), { products: { '7': '2' }, ids: ['a'], q: 'x' });
});
