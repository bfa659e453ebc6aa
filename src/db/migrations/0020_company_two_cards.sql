-- A company can offer the two-card split on its charges (merchant file `companies[].enable_two_cards`). A charge
-- made from a page that enables two cards keeps the page's choice either way.
ALTER TABLE companies ADD COLUMN enable_two_cards boolean NOT NULL DEFAULT false;
