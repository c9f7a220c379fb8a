/// The protocol as a JSON Schema (2020-12): every request, every reply, every event and every
/// error code, written from the declarations — each op's request type (`fields`, `result`),
/// each event type's `data`, `ErrorCode` — and the shapes they share (`definitions`).
/// `register-cli schema` prints it; docs/protocol.schema.json is this document, and a test
/// fails when the committed file is not.
///
/// Validate a request line against `#/$defs/request`, the reply to an op against
/// `#/$defs/reply_<op>`, an event line against `#/$defs/event`. Objects a reply or event
/// carries may gain members in later versions (they are open); a request's are closed, as
/// registerd refuses a field it does not know.
public enum ProtocolSchema {
  /// The schema document.
  public static var document: JSONValue {
    var defs = JSONObject()
    for (name, type) in definitions { defs[name] = type.schema }
    defs["error_code"] = .object([
      "type": .string("string"), "enum": .array(ErrorCode.allCases.map { .string($0.rawValue) }),
    ])
    defs["error"] = WireType.objectSchema(
      [
        .required("code", .ref("error_code"), "what went wrong, for a program"),
        .required("message", .text, "what went wrong, for a person"),
      ], open: true, description: "Why a request was refused.")
    var requests: [JSONValue] = []
    for op in Op.allCases {
      let type = op.requestType
      let envelope: [WireField] = [
        .required("op", .constant(.string(op.rawValue)), "the op"),
        .optional("id", .any, "echoed in the reply"),
      ]
      let trailer: [WireField] = [
        .optional("key", .string(maxLength: 200), "idempotency key: a retry gets the first reply"),
        .optional("expect_version", .integer(), "the order version this change is based on"),
        .optional("approve", .ref("approval"), "a manager's approval sent with the request"),
      ]
      var request = WireType.objectSchema(
        envelope + type.fields + trailer, open: false,
        description: "\(type.summary) Sent by: \(op.access.who).")
      if !type.variants.isEmpty, case .object(var object) = request {
        // Each kind: its discriminator, the fields it needs, and no field of another kind.
        let common = (envelope + trailer).map(\.name)
        object["oneOf"] = .array(
          type.variants.map { variant in
            .object([
              "properties": .object([variant.field: .object(["const": .string(variant.value)])]),
              "required": .array(([variant.field] + variant.required).map(JSONValue.string)),
              "propertyNames": .object([
                "enum": .array(
                  (common + [variant.field] + variant.required + variant.optional).map(
                    JSONValue.string))
              ]),
            ])
          })
        request = .object(object)
      }
      defs["request_\(op.rawValue)"] = request
      requests.append(WireType.reference("request_\(op.rawValue)"))
      defs["reply_\(op.rawValue)"] = .object([
        "anyOf": .array([
          WireType.objectSchema(
            [
              .required("id", .any, "the request's id, or null"),
              .required("ok", .constant(.bool(true)), "the request was carried out"),
              .required("result", type.result, "what it gave"),
            ], open: true),
          WireType.reference("refusal"),
        ])
      ])
    }
    defs["request"] = .object(["oneOf": .array(requests)])
    defs["refusal"] = WireType.objectSchema(
      [
        .required("id", .any, "the request's id, or null"),
        .required("ok", .constant(.bool(false)), "the request was refused; nothing changed"),
        .required("error", .ref("error"), "why"),
      ], open: true)
    defs["reply"] = .object([
      "anyOf": .array(Op.allCases.map { WireType.reference("reply_\($0.rawValue)") })
    ])
    var events: [JSONValue] = []
    for type in EventType.allCases {
      defs["event_\(type.rawValue)"] = WireType.objectSchema(
        [
          .required("event", .constant(.string(type.rawValue)), "the event's type"),
          .required("seq", .integer(1...IntegerRanges.maximumCounter), "its journal record"),
          .required("at", .timestamp, "when it happened"),
          .required("data", type.data, "what happened"),
        ], open: false)
      events.append(WireType.reference("event_\(type.rawValue)"))
    }
    events.append(
      WireType.objectSchema(
        [
          .required("event", .constant(.string("error")), "the stream ends"),
          .required("error", .ref("error"), "why (subscriber_too_slow)"),
        ], open: false))
    defs["event"] = .object(["oneOf": .array(events)])
    return .object([
      "$schema": .string("https://json-schema.org/draft/2020-12/schema"),
      "$id": .string("urn:registerd:protocol:1"),
      "title": .string("registerd protocol 1"),
      "description": .string(
        "Newline-delimited JSON over a Unix socket: a request per line, a reply per request, events after subscribe. See docs/PROTOCOL.md."
      ),
      "anyOf": .array([
        WireType.reference("request"), WireType.reference("reply"), WireType.reference("event"),
      ]),
      "$defs": .object(defs),
    ])
  }

  /// The document as the committed file holds it: indented, with a final newline.
  public static var text: String { document.pretty + "\n" }

  /// The shapes several declarations share, by name.
  static let definitions: [(String, WireType)] = [
    ("money", .string(maxLength: 40, pattern: "^-?[0-9]+(\\.[0-9]+)?$")),
    ("percent", .string(maxLength: 40, pattern: "^[0-9]+(\\.[0-9]+)?$")),
    (
      "timestamp",
      .string(
        maxLength: 40,
        pattern:
          "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}(Z|[+-][0-9]{2}:[0-9]{2})$"
      )
    ),
    ("receipt_code", .string(maxLength: 40, pattern: "^\\s*[Rr]?[0-9]+\\s*$")),
    (
      "approval",
      .object([
        .required("operator", .text, "a manager's operator id"),
        .required("pin", .text, "their PIN"),
      ])
    ),
    (
      "card_entry",
      .object([
        .required("number", .string(maxLength: 40), "the card number (never stored or echoed)"),
        .required("exp_month", .integer(), "1 to 12"),
        .required("exp_year", .integer(), "27 or 2027"),
        .required("cvv", .string(maxLength: 4), "3 or 4 digits (never stored or echoed)"),
      ])
    ),
    (
      "return_line",
      .object([
        .optional("line", .integer(), "the receipt's line number (or item)"),
        .optional("item", .text, "a SKU or barcode on the receipt (or line)"),
        .required("qty", .integer(), "how many come back"),
      ])
    ),
    (
      "card_summary",
      .object(
        [
          .required("brand", .text, "the card network"),
          .required("last4", .text, "the card number's last four digits"),
        ], open: true)
    ),
    (
      "tender",
      .object(
        [
          .required("type", .oneOfStrings(TenderType.allCases.map(\.rawValue)), "the kind"),
          .required("amount", .money, "how much"),
          .optional("card", .ref("card_summary"), "a card's network and last four digits"),
          .optional("gift_card", .text, "a gift card, masked to its last four digits"),
          .optional("customer_id", .text, "whose store credit"),
          .optional("name", .text, "a store tender's name"),
          .optional("reference", .text, "a store tender's reference"),
          .optional("auth_code", .text, "a card terminal's approval code"),
        ], open: true)
    ),
    (
      "order_line",
      .object(
        [
          .required("line", .integer(), "the line's number, stable for the order's life"),
          .required("sku", .text, "the product"),
          .required("name", .text, "its name"),
          .required("qty", .integer(), "how many"),
          .required("unit_price", .money, "the price charged per unit"),
          .optional("regular_price", .money, "the regular price, when a sale price applies"),
          .required("amount", .money, "unit price × quantity"),
          .required("tax_class", .text, "the tax class"),
          .optional("options", .map(.text), "the options chosen"),
          .optional("override", .object([], open: true), "a price override"),
          .optional("discount", .object([], open: true), "the line's discount"),
          .optional("discount_amount", .money, "what the discount takes off"),
          .optional("promotion_discount", .money, "the line's share of promotions"),
          .optional("net", .money, "the amount after discounts and promotions"),
          .optional("voided", .constant(.bool(true)), "voided after payment began"),
          .optional("gift_card", .constant(.bool(true)), "a gift card sold or reloaded"),
          .optional("reloads", .text, "the gift card a reload loads, masked"),
        ], open: true)
    ),
    (
      "order",
      .object(
        [
          .required("order_id", .integer(), "the order's number"),
          .required(
            "status", .oneOfStrings(["open", "parked", "completed"]), "where the order stands"),
          .required("version", .integer(), "increases with every change"),
          .optional("receipt", .integer(), "the receipt number, once completed"),
          .required("lines", .array(.ref("order_line")), "the lines, voided ones included"),
          .required("item_count", .integer(), "units on the order"),
          .required("subtotal", .money, "Σ line amounts"),
          .optional("discount", .object([], open: true), "the order's discount"),
          .required("discount_total", .money, "line and order discounts"),
          .optional("promotions", .array(.object([], open: true)), "the promotions that apply"),
          .optional("promotion_savings", .money, "what the promotions save"),
          .required("tax", .money, "the tax"),
          .required("taxes", .array(.object([], open: true)), "per tax class"),
          .required("tax_included", .boolean, "whether prices include tax"),
          .optional("gift_cards", .money, "gift cards sold on the order"),
          .required("total", .money, "what is owed"),
          .required("tenders", .array(.ref("tender")), "the payments"),
          .required("paid", .money, "Σ tenders"),
          .required("balance_due", .money, "total − paid"),
          .optional("cash_due", .money, "what settles the balance in cash, when cash rounds"),
          .optional("cash_rounding", .money, "the cash rounding applied"),
          .required("change_due", .money, "change handed back"),
          .optional("customer_id", .text, "the attached customer"),
          .optional("customer_name", .text, "their name"),
          .optional("tax_exempt", .text, "the tax-exemption certificate"),
          .optional("note", .text, "the order's note"),
          .optional("parked_at", .timestamp, "when it was parked"),
          .optional(
            "parked", .object([], open: true),
            "in `park`'s reply (the new open order): the order just parked"),
          .optional(
            "voided_order_id", .integer(),
            "in `void`'s reply (the new open order): the order voided"),
          .optional(
            "reversed_tenders", .array(.ref("tender")),
            "in `void`'s reply: the payments to hand back or reverse"),
          .optional(
            "wishlist", .ref("wishlist"),
            "in `wishlist_to_order`'s reply: the customer's wishlist after"),
        ], open: true)
    ),
    (
      "completed_order",
      .object(
        [
          .required("order_id", .integer(), "the order's number"),
          .required("status", .constant(.string("completed")), "the sale is complete"),
          .required("receipt", .ref("receipt_reply"), "the receipt"),
        ], open: true)
    ),
    (
      "receipt_reply",
      .object(
        [
          .required("number", .integer(), "the receipt's number"),
          .required("text", .anyString, "the receipt as printed"),
          .required("receipt", .object([], open: true), "the receipt's facts"),
          .optional("escpos", .text, "the receipt as ESC/POS bytes, base64"),
        ], open: true)
    ),
    (
      "product",
      .object(
        [
          .required("sku", .text, "the SKU"),
          .required("name", .text, "the name"),
          .required("price", .money, "the regular price"),
          .optional("sale_price", .money, "the sale price"),
          .required("unit_price", .money, "the price charged now"),
          .optional("stock", .nullable(.integer()), "units in stock (null: not tracked)"),
          .optional("available", .integer(), "stock less what orders hold"),
          .required("tax_class", .text, "the tax class in force"),
          .required("tax_rate", .percent, "its rate"),
          .required("gift_card", .boolean, "a gift card"),
        ], open: true)
    ),
    (
      "catalog_product",
      .object(
        [
          .required("sku", .text, "the SKU"),
          .required("name", .text, "the name"),
          .required("price", .money, "the regular price"),
        ], open: true)
    ),
    (
      "catalog_file",
      .object([.required("products", .array(.ref("catalog_product")), "")], open: true)
    ),
    ("store_settings", .object([], open: true)),
    (
      "catalog_page",
      .object(
        [
          .required("store", .object([], open: true), "the store's name, currency, tax mode"),
          .required("products", .array(.ref("product")), "the page"),
          .optional("promotions", .array(.object([], open: true)), "the catalog's promotions"),
          .optional("remaining", .integer(), "products after this page"),
        ], open: true)
    ),
    (
      "hello",
      .object(
        [
          .required("protocol", .constant1, "the protocol's version"),
          .required("server", .constant(.string("registerd")), "the server"),
          .required("version", .text, "registerd's version"),
          .required("store", .anyString, "the store's name (empty until it is set up)"),
          .required("currency", .text, "the store's currency"),
          .required("day", .integer(), "the business day"),
          .required("journal_seq", .integer(), "the last journal record"),
          .required("read_only", .boolean, "storage failed: changes are refused"),
          .optional("setup_needed", .array(.text), "what an installed register still needs"),
          .optional(
            "journal",
            .object(
              [
                .required("records", .integer(), "records written since start-up"),
                .required("fsyncs", .integer(), "groups synced since start-up"),
                .required("last_seq", .integer(), "the last record's sequence number"),
              ], open: true), "the journal's counts"),
          .optional(
            "printer",
            .object(
              [
                .required("device", .text, "where the receipt printer is"),
                .required(
                  "status",
                  .oneOfStrings(["ok", "offline", "paper_out", "cover_open", "error", "unknown"]),
                  "what it last said of itself"),
                .required("pending", .integer(), "jobs waiting"),
              ], open: true), "the receipt printer, when the store has one"),
          .optional(
            "display",
            .object(
              [
                .required("device", .text, "where the customer's pole display is"),
                .required(
                  "status", .oneOfStrings(["ok", "offline", "unknown"]),
                  "whether the last screen reached it"),
              ], open: true), "the customer's pole display, when registerd drives one"),
          .optional(
            "tenders", .array(.text),
            "the store's own tenders (`tender` type `other`), when it has any"),
          .required("ops", .array(.text), "the ops it serves"),
        ], open: true)
    ),
    (
      "operator",
      .object(
        [
          .required("id", .text, "the operator's id"),
          .required("name", .text, "their name"),
          .required("role", .oneOfStrings(["cashier", "manager"]), "their role"),
        ], open: true)
    ),
    (
      "operator_list",
      .object(
        [
          .required("operators", .array(.ref("operator")), "the operators"),
          .required("signed_in", .nullable(.text), "who is signed in (null: nobody)"),
        ], open: true)
    ),
    (
      "customer",
      .object(
        [
          .required("customer_id", .text, "the customer's id"),
          .required("name", .text, "their name"),
        ], open: true)
    ),
    (
      "customer_history",
      .object(
        [
          .required("customer", .ref("customer"), "the customer"),
          .required("receipts", .array(.object([], open: true)), "their receipts"),
          .required("spent", .money, "what their sales came to"),
          .required("refunded", .money, "what their returns gave back"),
          .required("net", .money, "spent less refunded"),
        ], open: true)
    ),
    (
      "wishlist",
      .object(
        [
          .required("customer_id", .text, "the customer"),
          .required("items", .array(.object([], open: true)), "the products, oldest first"),
        ], open: true)
    ),
    (
      "gift_card",
      .object(
        [
          .required("number", .text, "masked to its last four digits"),
          .required("balance", .money, "what is left on it"),
        ], open: true)
    ),
    (
      "drawer_reply",
      .object([.required("drawer", .object([], open: true), "the drawer so far today")])
    ),
    (
      "report",
      .object(
        [
          .required("report", .object([], open: true), "the report's figures"),
          .required("text", .anyString, "the report as printed"),
          .optional("escpos", .text, "the report as ESC/POS bytes, base64"),
        ], open: true)
    ),
    (
      "print_job",
      .object(
        [
          .required("job", .integer(), "the job's number"),
          .required("document", .oneOfStrings(["receipt", "report"]), "what it prints"),
        ], open: true)
    ),
    (
      "emailed",
      .object(
        [
          .required("receipt", .integer(), "the receipt"),
          .required("to", .text, "the address"),
          .required("message_id", .text, "the message's id"),
        ], open: true)
    ),
  ]
}

extension WireType {
  /// The number 1 (the protocol's version).
  static let constant1 = WireType.integer(1...1)
}

extension OpAccess {
  /// Who may send an op with this access, in words for the schema.
  var who: String {
    switch self {
    case .open: "anyone"
    case .cashier: "a signed-in operator"
    case .manager(let work): "a manager, or an operator with a manager's approval (\(work))"
    }
  }
}
