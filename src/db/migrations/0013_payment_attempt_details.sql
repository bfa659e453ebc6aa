-- What a charge attempt (POST /charges/{id}/pay) says about itself: its `observation` and `meta`. A charge
-- pays an order that already exists, so these belong to the attempt, not to the order. Null when the
-- attempt sent none, and on payments of new orders, which carry them on the order.
ALTER TABLE payments ADD COLUMN observation text, ADD COLUMN meta jsonb;

-- The late interest (not the fine, not card installment interest or fees) included in the amount of an
-- overdue charge's attempt: LastPayment.interest. interest_cents keeps all of them together, as the
-- settlement reads it. Rows written before this column existed read 0.
ALTER TABLE payments ADD COLUMN late_interest_cents bigint NOT NULL DEFAULT 0 CHECK (late_interest_cents >= 0);

-- The payment lists of a checkout page and of a cart (without `ids`, their most recent payments) start
-- from that page's or cart's orders.
CREATE INDEX orders_account_checkout_page_idx ON orders (account_id, checkout_page_id) WHERE checkout_page_id IS NOT NULL;
CREATE INDEX orders_account_cart_idx ON orders (account_id, cart_id) WHERE cart_id IS NOT NULL;
