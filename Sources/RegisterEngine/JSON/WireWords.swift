/// The words the wire and the journal are made of, for the JSON parser to hand out without
/// making a new `String` each time (`ShortTextTable`): member names, op names and event types.
///
/// Only a speed hint. A word missing here parses exactly the same, as a string made from its
/// bytes; a word listed here that never occurs costs nothing but its slot.
enum WireWords {
  /// Member names of requests, replies, journal records and snapshots.
  static let memberNames: [String] = [
    "address", "after", "amount", "amount_due", "applications", "approve", "approved_by", "archive",
    "as_live", "as_of", "at", "auth_code", "auto_sign_out", "available", "balance", "balance_due",
    "barcodes", "basis", "brand", "card", "cards", "cash", "cash_due", "cash_refunds",
    "cash_rounding", "cash_taken", "catalog", "catalog_base", "category", "change", "change_due",
    "change_given", "changes", "checksum", "choice", "choices", "class", "classes", "closed_at",
    "closed_days", "code", "colors", "count", "counted", "counted_cash", "currency", "customer",
    "customer_book", "customer_id", "customers", "cvv", "data", "day", "day_book", "days",
    "default_class", "delta", "description", "device", "discontinued", "discount",
    "discount_amount", "discount_total", "discounts", "document", "drawer", "email", "email_from",
    "emailed", "ends", "error", "escpos", "event", "exp_month", "exp_year", "expect_version",
    "expected_cash", "fact", "failed_attempts", "file", "fingerprint", "first", "first_receipt",
    "float", "footer", "format", "fsyncs", "gift_card", "gift_card_count", "gift_cards",
    "gift_cards_sold", "gift_cards_total", "gross", "group", "header", "id", "image", "in_stock",
    "issued_amount", "issued_at", "issued_day", "issued_receipt", "item_count", "items",
    "items_sold", "job", "journal_head", "journal_seq", "key", "keys", "kind", "last_activity",
    "last_receipt", "last_seq", "last_sequence", "last_used_at", "ledger", "line", "line_discount",
    "line_discounts", "lines", "locked", "locked_at", "locked_until", "lockout_minutes", "mac",
    "message", "message_id", "more", "name", "net", "net_sales", "next_job", "next_line",
    "next_order_id", "no_sales", "note", "number", "op", "open_amount", "opened_at", "operator",
    "operator_id", "operator_name", "operators", "options", "order", "order_discount",
    "order_discounts", "order_id", "orders", "original_receipt", "others", "over_short", "override",
    "overrides", "paid", "paid_in", "paid_in_count", "paid_out", "paid_out_count", "parked",
    "parked_at", "parked_totals", "pending", "people", "percent", "percent_off", "phone", "pin",
    "pin_hash", "position", "prev", "price", "price_delta", "price_overrides", "print_job",
    "print_queue", "printer", "product", "products", "promotion", "promotions", "protocol", "qty",
    "quantity", "query", "rate", "read_only", "reason", "receipt", "receipt_barcode",
    "receipt_footer", "receipt_number", "receipt_width", "receipts", "records", "redeemed",
    "reduction", "reference", "refund_to", "refunded", "refunds", "regular_price", "removed",
    "replacing", "reply", "report", "reprint", "required", "result", "return", "returned_items",
    "returns", "returns_count", "returns_net", "returns_tax", "returns_total", "reversals",
    "reversed_tenders", "role", "rounding", "sale", "sale_price", "sale_savings", "sales",
    "sales_count", "saving", "savings", "seq", "sequence", "server", "signed_in", "signed_out",
    "sku", "skus", "sold", "spent", "staff", "state", "status", "stock", "store", "store_credit",
    "store_name", "stored_value", "stores", "subscribed", "subtotal", "sum", "tax", "tax_by_class",
    "tax_class", "tax_exempt", "tax_exemption", "tax_included", "tax_lines", "tax_per_line",
    "tax_rate", "taxes", "tender", "tenders", "text", "to", "topics", "total", "totals", "type",
    "unit_price", "units", "version", "voided", "voided_lines", "voided_order_id", "voided_orders",
    "was", "width", "wishlist", "wishlists",
  ]

  /// Every member name, op name and event type, each as its own literal.
  static var all: [String] {
    memberNames + Op.allCases.map(\.rawValue) + EventType.allCases.map(\.rawValue)
  }

  /// The table the parser looks strings up in.
  static let table = ShortTextTable<String>(all.map { ($0, $0) })
}
