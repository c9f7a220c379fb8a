-- The back office's tables for registerd's lanes (register-cli export --format sql).
-- Every fact is keyed by (lane, seq): the lane it came from and the journal sequence number of
-- the record that made it, so loading a record twice changes nothing (ON CONFLICT DO NOTHING)
-- and `lanes.last_seq`, committed in the same transaction as the facts, says where to resume.
-- Money is NUMERIC (exact); times are timestamptz. Safe to run again: it creates what is
-- missing and replaces the views.

SET client_min_messages = warning;

CREATE TABLE IF NOT EXISTS lanes (
  lane      text PRIMARY KEY,
  last_seq  bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS sales (
  lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, at timestamptz NOT NULL,
  receipt integer NOT NULL, order_id integer NOT NULL, operator text, customer_id text,
  items bigint NOT NULL, gross numeric NOT NULL, discounts numeric NOT NULL,
  promotions numeric NOT NULL, net numeric NOT NULL,
  tax numeric NOT NULL, total numeric NOT NULL, gift_cards numeric NOT NULL,
  cash_rounding numeric NOT NULL, change numeric NOT NULL,
  PRIMARY KEY (lane, seq)
);

CREATE TABLE IF NOT EXISTS sale_lines (
  lane text NOT NULL, seq bigint NOT NULL, line integer NOT NULL, receipt integer NOT NULL,
  day integer NOT NULL, sku text NOT NULL, name text NOT NULL, category text,
  qty bigint NOT NULL, unit_price numeric NOT NULL, net numeric, tax_class text NOT NULL,
  tax_rate numeric NOT NULL,
  PRIMARY KEY (lane, seq, line)
);

CREATE TABLE IF NOT EXISTS tenders (
  lane text NOT NULL, seq bigint NOT NULL, position integer NOT NULL, receipt integer NOT NULL,
  day integer NOT NULL, kind text NOT NULL CHECK (kind IN ('sale', 'refund')),
  type text NOT NULL, amount numeric NOT NULL, brand text, last4 text, name text,
  reference text,
  PRIMARY KEY (lane, seq, position)
);

CREATE TABLE IF NOT EXISTS returns (
  lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, at timestamptz NOT NULL,
  receipt integer NOT NULL, original_receipt integer NOT NULL, operator text,
  items bigint NOT NULL, net numeric NOT NULL, tax numeric NOT NULL, total numeric NOT NULL,
  cash_rounding numeric NOT NULL, reason text NOT NULL,
  PRIMARY KEY (lane, seq)
);

CREATE TABLE IF NOT EXISTS return_lines (
  lane text NOT NULL, seq bigint NOT NULL, line integer NOT NULL, receipt integer NOT NULL,
  day integer NOT NULL, sku text NOT NULL, name text NOT NULL, qty bigint NOT NULL,
  unit_price numeric NOT NULL, net numeric NOT NULL, tax numeric NOT NULL,
  tax_class text NOT NULL,
  PRIMARY KEY (lane, seq, line)
);

CREATE TABLE IF NOT EXISTS voids (
  lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, at timestamptz NOT NULL,
  order_id integer NOT NULL, operator text, amount numeric NOT NULL, reason text,
  PRIMARY KEY (lane, seq)
);

CREATE TABLE IF NOT EXISTS drawer_moves (
  lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, at timestamptz NOT NULL,
  kind text NOT NULL CHECK (kind IN ('float', 'paid_in', 'paid_out', 'no_sale')),
  amount numeric NOT NULL, operator text, reason text,
  PRIMARY KEY (lane, seq)
);

CREATE TABLE IF NOT EXISTS z_reports (
  lane text NOT NULL, seq bigint NOT NULL, day integer NOT NULL, opened_at timestamptz,
  closed_at timestamptz NOT NULL, sales_count integer NOT NULL, items_sold bigint NOT NULL,
  gross numeric NOT NULL, discounts numeric NOT NULL, promotions numeric NOT NULL,
  net_sales numeric NOT NULL,
  tax numeric NOT NULL, total numeric NOT NULL, returns_count integer NOT NULL,
  returns_total numeric NOT NULL, gift_cards_sold numeric NOT NULL,
  cash_expected numeric NOT NULL, counted_cash numeric, over_short numeric,
  gift_cards_reloaded numeric,
  PRIMARY KEY (lane, seq)
);

-- A database made before sales and Z reports had their promotions (and a sale its net) gets the
-- columns, and its rows get their values: a Z report's net_sales was already after promotions,
-- and a sale's net is its lines' nets less the gift cards sold on it. Then, on every row,
-- gross − discounts − promotions = net (net_sales).
ALTER TABLE sales ADD COLUMN IF NOT EXISTS promotions numeric;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS net numeric;
ALTER TABLE z_reports ADD COLUMN IF NOT EXISTS promotions numeric;
-- Gift card reloads came later: a day closed before them reloaded nothing.
ALTER TABLE z_reports ADD COLUMN IF NOT EXISTS gift_cards_reloaded numeric;
UPDATE z_reports SET gift_cards_reloaded = 0 WHERE gift_cards_reloaded IS NULL;
UPDATE sales s
  SET net = (SELECT sum(l.net) FROM sale_lines l WHERE l.lane = s.lane AND l.seq = s.seq)
            - s.gift_cards
  WHERE s.net IS NULL;
UPDATE sales SET promotions = gross - discounts - net WHERE promotions IS NULL;
UPDATE z_reports SET promotions = gross - discounts - net_sales WHERE promotions IS NULL;

-- What a manager asks for.

-- (promotions and net last: a view made before them keeps its columns' places.)
CREATE OR REPLACE VIEW sales_by_day AS
  SELECT lane, day, count(*) AS sales, sum(items) AS items, sum(gross) AS gross,
         sum(discounts) AS discounts, sum(tax) AS tax, sum(total) AS total,
         sum(promotions) AS promotions, sum(net) AS net
  FROM sales GROUP BY lane, day;

CREATE OR REPLACE VIEW sales_by_category AS
  SELECT l.lane, l.day, coalesce(l.category, '(unknown)') AS category, sum(l.qty) AS units,
         sum(l.net) AS net
  FROM sale_lines l GROUP BY l.lane, l.day, coalesce(l.category, '(unknown)');

CREATE OR REPLACE VIEW tender_mix AS
  SELECT lane, day, type, kind, count(*) AS count, sum(amount) AS amount
  FROM tenders GROUP BY lane, day, type, kind;

-- The lanes' own Z totals next to what the loaded facts add up to: the two must agree.
CREATE OR REPLACE VIEW z_check AS
  SELECT z.lane, z.day, z.sales_count, z.total AS z_total,
         coalesce(s.sales, 0) AS loaded_sales, coalesce(s.total, 0) AS loaded_total,
         z.returns_total AS z_returns, coalesce(r.total, 0) AS loaded_returns,
         z.sales_count = coalesce(s.sales, 0) AND z.total = coalesce(s.total, 0)
           AND z.returns_total = coalesce(r.total, 0) AS agrees
  FROM z_reports z
  LEFT JOIN (SELECT lane, day, count(*) AS sales, sum(total) AS total FROM sales
             GROUP BY lane, day) s ON s.lane = z.lane AND s.day = z.day
  LEFT JOIN (SELECT lane, day, sum(total) AS total FROM returns
             GROUP BY lane, day) r ON r.lane = z.lane AND r.day = z.day;

CREATE OR REPLACE VIEW z_totals_by_day AS
  SELECT day, count(*) AS lanes, sum(sales_count) AS sales, sum(net_sales) AS net_sales,
         sum(tax) AS tax, sum(total) AS total, sum(returns_total) AS returns,
         sum(over_short) AS over_short
  FROM z_reports GROUP BY day;
