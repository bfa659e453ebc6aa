-- A checkout page may ask the payer's name and CPF/CNPJ for every method, not only for a boleto (merchant file
-- `checkout_pages[].asks_payer_identity`): the API then refuses its Pix and card payments without them.
ALTER TABLE checkout_pages ADD COLUMN asks_payer_identity boolean NOT NULL DEFAULT false;
-- The agência/código do beneficiário the gateway's bank printed on a boleto (for example "1234-3 / 00056789-2").
ALTER TABLE payments ADD COLUMN boleto_beneficiary_code text;
