-- How a subscription renews, and the renewal whose outcome it is waiting for.
-- renewal_method: a saved card is charged (credit_card), or a new pix or boleto is issued each period
-- on renewal_gateway. renewal_order_id: the renewal order of the attempt in flight (a card charge whose
-- answer is unknown, a pix or boleto not yet paid); null between attempts.
ALTER TABLE subscriptions
  ADD COLUMN renewal_method   text NOT NULL DEFAULT 'credit_card' CHECK (renewal_method IN ('credit_card', 'pix', 'bank_slip')),
  ADD COLUMN renewal_gateway  text CHECK (renewal_gateway IN ('gateway_a', 'gateway_b', 'gateway_c')),
  ADD COLUMN renewal_order_id bigint REFERENCES orders(id);

-- Subscriptions started by a pix or boleto renew by the same method on the same gateway.
UPDATE subscriptions s
SET renewal_method = p.method, renewal_gateway = p.gateway
FROM payments p
WHERE s.saved_payment_method_id IS NULL
  AND p.account_id = s.account_id
  AND p.order_id = s.origin_order_id
  AND p.method IN ('pix', 'bank_slip')
  AND p.gateway IN ('gateway_a', 'gateway_b', 'gateway_c')
  AND p.status IN ('paid', 'partially_refunded');

-- A period claimed by a worker that died before recording the answer: its pending renewal payment.
UPDATE subscriptions s
SET renewal_order_id = (
  SELECT o.id FROM orders o JOIN payments p ON p.order_id = o.id
  WHERE o.account_id = s.account_id AND o.parent_order_id = s.origin_order_id AND o.source = 'subscription' AND p.status = 'pending'
  ORDER BY p.id DESC LIMIT 1)
WHERE s.next_charge_at IS NULL AND s.status <> 'cancelled';
