-- A gateway refund is recorded once per payment, whichever path records it first (our refund request or
-- the gateway's webhook): the gateway's refund id is unique per payment.
CREATE UNIQUE INDEX refunds_gateway_refund_idx ON refunds (account_id, payment_id, gateway_refund_id) WHERE gateway_refund_id IS NOT NULL;
