import RegisterEngine

extension String {
  /// `paper_out` → `paper out`.
  fileprivate var replacingUnderscores: String {
    String(map { $0 == "_" ? " " : $0 })
  }
}

/// Human-readable output of replies.
enum Output {
  static func render(_ result: JSONValue, style: OutputStyle) -> String {
    switch style {
    case .order:
      return order(result)
    case .scanned:
      guard let line = result["lines"]?.arrayValue?.last else { return order(result) }
      let quantity = line["qty"]?.int64Value ?? 1
      return "\(quantity > 1 ? "\(quantity) × " : "")\(text(line["name"]))  \(text(line["amount"]))"
        + "    total \(text(result["total"]))"
        + " (\(text(result["item_count"])) item\(result["item_count"]?.int64Value == 1 ? "" : "s"))\n"
    case .giftCard:
      let card = result["gift_card"]
      let used = card?["last_used_at"].map { ", last used \(localTime($0))" } ?? ""
      return "Gift card \(text(card?["number"])): balance \(text(card?["balance"]))"
        + " (loaded with \(text(card?["issued_amount"])) on day \(text(card?["issued_day"])),"
        + " receipt \(text(card?["issued_receipt"]))\(used))\n"
    case .orderOrReceipt:
      if let text = result["receipt"]?["text"]?.stringValue {
        return text
          + "\nSale complete. Receipt \(result["receipt"]?["number"].map(describe) ?? "?")"
          + ", change \(result["change_due"]?.stringValue ?? "0.00").\n"
      }
      return order(result)
    case .receipt:
      return result["text"]?.stringValue ?? result.pretty + "\n"
    case .catalog:
      return catalog(result)
    case .catalogCategory(let category):
      guard case .object(var object) = result else { return catalog(result) }
      let wanted = category.lowercased()
      let products = (result["products"]?.arrayValue ?? []).filter {
        $0["category"]?.stringValue?.lowercased() == wanted
      }
      object["products"] = .array(products)
      if products.isEmpty {
        return "No products in the category \(category) (on this page of the catalog).\n"
      }
      return catalog(.object(object))
    case .hello:
      guard let hello = try? HelloView(json: result) else { return result.pretty + "\n" }
      if let needs = result["setup_needed"]?.arrayValue?.compactMap(\.stringValue), !needs.isEmpty {
        return
          "registerd \(hello.version) is not set up: it needs \(needs.joined(separator: " and ")); run `register-cli setup`\n"
      }
      var out =
        "registerd \(hello.version) serving \(hello.store) (protocol \(hello.protocolVersion))\n"
      if let printer = result["printer"] {
        // The receipt printer, so a cashier sees why receipts are not coming out.
        out +=
          "Printer \(text(printer["device"])): \(text(printer["status"]).replacingUnderscores)"
          + ", \(Words.count(printer["pending"]?.int64Value ?? 0, "job")) waiting\n"
      }
      return out
    case .printQueued:
      let job = result["print_job"]
      return "Queued for the printer: receipt \(text(job?["receipt"])) (job \(text(job?["job"])))\n"
    case .report, .escpos:
      return result["text"]?.stringValue ?? result.pretty + "\n"
    case .parked:
      let orders = result["parked"]?.arrayValue ?? []
      if orders.isEmpty { return "No parked orders.\n" }
      return orders.map { parkedOrder in
        let note = parkedOrder["note"]?.stringValue.map { " — \($0)" } ?? ""
        return "Parked order \(text(parkedOrder["order_id"]))\(note): "
          + "\(items(parkedOrder["item_count"])), total \(text(parkedOrder["total"])), "
          + "parked \(localTime(parkedOrder["parked_at"]))\n"
      }.joined()
    case .emailQueued:
      // registerd writes the message to its outbox; whether it is sent is up to the mail
      // system that picks it up, so do not claim it was e-mailed.
      let emailed = result["emailed"] ?? result
      if let file = emailed["file"]?.stringValue {
        return "Queued for e-mail: \(file) (to \(text(emailed["to"])))\n"
      }
      return
        "Queued for e-mail to \(text(emailed["to"])) (message \(text(emailed["message_id"])))\n"
    case .plain(let message):
      return message + "\n"
    case .message(let message):
      return message + "\n"
    case .operators:
      var out = "\(left("ID", 12)) \(left("Name", 24)) \(left("Role", 8)) Status\n"
      for person in result["operators"]?.arrayValue ?? [] {
        let locked = person["locked"] == .bool(true)
        out +=
          left(text(person["id"]), 12) + " " + left(text(person["name"]), 24) + " "
          + left(text(person["role"]), 8) + " " + (locked ? "LOCKED" : "ok") + "\n"
      }
      out += "Signed in: \(result["signed_in"].map(describe) ?? "-")\n"
      return out
    case .customers:
      let list = result["customers"]?.arrayValue ?? [result]
      var out = list.map { customer in
        "\(text(customer["customer_id"]))  \(text(customer["name"]))"
          + (customer["email"].map { "  \(describe($0))" } ?? "")
          + (customer["phone"].map { "  \(describe($0))" } ?? "") + "\n"
      }.joined()
      // The register returns the first matches only (100 unless --limit says); it says how
      // many there are when it left some out.
      if let matches = result["matches"] {
        out +=
          "(the first \(list.count) of \(describe(matches)) matches; narrow the search, or ask for up to 1000 with --limit)\n"
      }
      return out
    case .history:
      var out =
        "\(text(result["customer"]?["name"])) (\(text(result["customer"]?["customer_id"])))\n"
      for entry in result["receipts"]?.arrayValue ?? [] {
        out +=
          "  receipt \(right(text(entry["receipt"]), 5))  \(left(text(entry["kind"]), 6)) "
          + "\(localTime(entry["at"]))  \(right(text(entry["total"]), 10))\n"
      }
      out +=
        "  spent \(text(result["spent"])), refunded \(text(result["refunded"])), net \(text(result["net"]))\n"
      return out
    case .product:
      let product = result["product"] ?? result
      var out = "\(text(product["sku"]))  \(text(product["name"]))  \(text(product["unit_price"]))"
      if let stock = product["stock"], stock != .null {
        out += "  stock \(describe(stock))"
        if let available = product["available"], available != stock {
          out += " (\(describe(available)) available)"
        }
      }
      out += "\n  " + productDetails(product).joined(separator: "; ") + "\n"
      if let description = product["description"]?.stringValue, !description.isEmpty {
        out += "  \(description)\n"
      }
      if case .object(let stores)? = product["stores"] {
        out +=
          "  Other stores: "
          + stores.members.map { "\($0.key) \(describe($0.value))" }.joined(separator: ", ") + "\n"
      }
      return out
    case .wishlist:
      if result["order_id"] != nil { return order(result) }
      let list = result["wishlist"] ?? result
      let items = list["items"]?.arrayValue ?? []
      var out = "Wishlist of \(text(list["name"])) (\(text(list["customer_id"])))"
      if items.isEmpty { return out + ": empty\n" }
      out += "\n"
      for item in items {
        guard item["discontinued"] != .bool(true) else {
          out += "  \(left(text(item["sku"]), 14)) no longer sold\n"
          continue
        }
        let here: String
        if item["in_stock"] == .bool(false) {
          here = "out of stock here"
        } else if let available = item["available"], available != .null {
          here = "\(describe(available)) here"
        } else {
          here = "in stock"
        }
        out +=
          "  \(left(text(item["sku"]), 14)) \(left(text(item["name"]), 28)) "
          + "\(right(text(item["unit_price"]), 9))  \(here)"
        if case .object(let stores)? = item["stores"] {
          let elsewhere = stores.members.filter { ($0.value.int64Value ?? 0) > 0 }
          if !elsewhere.isEmpty {
            out +=
              "; at "
              + elsewhere.map { "\($0.key) (\(describe($0.value)))" }.joined(separator: ", ")
          }
        }
        out += "\n"
      }
      return out
    case .drawer:
      guard let drawer = try? DrawerView(json: result["drawer"] ?? result) else {
        return result.pretty + "\n"
      }
      return "Drawer, day \(drawer.day): float \(drawer.float), cash taken "
        + "\(drawer.cashTaken), change \(drawer.changeGiven), refunds "
        + "\(drawer.cashRefunds), paid in \(drawer.paidIn), paid out "
        + "\(drawer.paidOut); expected \(drawer.expectedCash)\n"
    }
  }

  static func describe(_ value: JSONValue) -> String { value.displayText }

  static func text(_ value: JSONValue?) -> String { value?.displayText ?? "" }

  /// An item count as it reads: `1 item`, `2 items`.
  static func items(_ value: JSONValue?) -> String {
    guard let count = value?.int64Value else { return text(value) + " items" }
    return Words.count(count, "item")
  }

  /// A timestamp from a reply in local time, short (`14:03` today, `Sun 22 Nov 14:03`
  /// before; see `HumanTime`); anything that is not a timestamp is shown as it is.
  static func localTime(_ value: JSONValue?) -> String {
    guard let iso = value?.stringValue, let shown = HumanTime.display(iso) else {
      return text(value)
    }
    return shown
  }

  /// Right-aligns `text` in `width` columns.
  static func right(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
  }

  /// Left-aligns `text` in `width` columns, cutting it short if needed.
  static func left(_ text: String, _ width: Int) -> String {
    if text.count > width { return String(text.prefix(width - 1)) + "~" }
    return text + String(repeating: " ", count: width - text.count)
  }

  /// The order as a small table with totals.
  static func order(_ order: JSONValue) -> String {
    var out = ""
    if let voided = order["voided_order_id"] {
      let reversed = (order["reversed_tenders"]?.arrayValue ?? []).map { tender in
        let label = tender["card"].map { "\(text($0["brand"])) ****\(text($0["last4"]))" } ?? "cash"
        return "\(label) \(text(tender["amount"]))"
      }
      out += "Order \(describe(voided)) voided"
      out +=
        reversed.isEmpty ? ".\n" : "; hand back / reverse: \(reversed.joined(separator: ", ")).\n"
    }
    if let parked = order["parked"] {
      out +=
        "Order \(text(parked["order_id"])) parked (resume it with: register-cli resume \(text(parked["order_id"]))).\n"
    }
    let status = text(order["status"])
    out += "Order \(text(order["order_id"])) (\(status), version \(text(order["version"])))\n"
    if let customer = order["customer_id"]?.stringValue {
      let name = order["customer_name"]?.stringValue.map { "\($0) (\(customer))" } ?? customer
      out += "  Customer: \(name)\n"
    }
    let lines = order["lines"]?.arrayValue ?? []
    if lines.isEmpty {
      out += "  (no items)\n"
    } else {
      out += "  #  \(left("Item", 28)) \(right("Qty", 4)) \(right("Amount", 10))\n"
      for line in lines {
        let voided = line["voided"] == .bool(true)
        out +=
          right(text(line["line"]), 3) + "  " + left(text(line["name"]), 28) + " "
          + right(text(line["qty"]), 4) + " " + right(voided ? "VOID" : text(line["amount"]), 10)
          + "\n"
        var notes: [String] = []
        if let options = line["options"]?.objectValue {
          notes.append(
            options.members.map { "\($0.key): \(describe($0.value))" }.joined(separator: ", "))
        }
        if (line["qty"]?.int64Value ?? 1) > 1 { notes.append("@ \(text(line["unit_price"]))") }
        if let regular = line["regular_price"]?.stringValue, line["override"] == nil {
          notes.append("sale, reg \(regular)")
        }
        if let override = line["override"] {
          notes.append("override, was \(text(override["was"])) (\(text(override["reason"])))")
        }
        if let discount = line["discount_amount"]?.stringValue {
          notes.append("discount -\(discount) (\(text(line["discount"]?["reason"])))")
        }
        if let promotion = line["promotion_discount"]?.stringValue {
          notes.append("promotion -\(promotion)")
        }
        for note in notes { out += "     \(note)\n" }
      }
    }
    // An order of gift cards alone has no items and no subtotal to show.
    var rows: [(String, String)] = []
    if order["item_count"]?.int64Value != 0 || order["gift_cards"] == nil {
      rows += [("Items", text(order["item_count"])), ("Subtotal", text(order["subtotal"]))]
    }
    if let discount = order["discount_total"]?.stringValue, discount != "0.00",
      !discount.allSatisfy({ $0 == "0" || $0 == "." })
    {
      rows.append(("Discounts", "-" + discount))
    }
    for promotion in order["promotions"]?.arrayValue ?? [] {
      rows.append((text(promotion["name"]), "-" + text(promotion["saving"])))
    }
    let taxLabel = order["tax_included"] == .bool(true) ? "Tax (included)" : "Tax"
    rows.append((taxLabel, text(order["tax"])))
    rows.append(("Total", text(order["total"])))
    for tender in order["tenders"]?.arrayValue ?? [] {
      let label: String
      if let card = tender["card"] {
        label = "\(text(card["brand"])) ****\(text(card["last4"]))"
      } else {
        label =
          tender["type"] == "other"
          ? TenderWords.label("other \(text(tender["name"]))")
          : TenderWords.label(text(tender["type"]))
      }
      rows.append((label, text(tender["amount"])))
    }
    if !(order["tenders"]?.arrayValue ?? []).isEmpty { rows.append(("Paid", text(order["paid"]))) }
    if let rounding = order["cash_rounding"]?.stringValue {
      rows.append(("Cash rounding", rounding))
    }
    if status == "open" {
      rows.append(("Balance due", text(order["balance_due"])))
      if let cashDue = order["cash_due"]?.stringValue, cashDue != text(order["balance_due"]) {
        rows.append(("Due in cash", cashDue))
      }
    } else {
      rows.append(("Change", text(order["change_due"])))
    }
    for (label, value) in rows {
      out += right(label, 34) + " " + right(value, 12) + "\n"
    }
    return out
  }

  /// The catalog as a table.
  /// What a cashier asks about a product beside its price: its category, the regular price
  /// when it is on sale, its colours, and whether it is a gift card (and takes an amount).
  static func productDetails(_ product: JSONValue) -> [String] {
    var details = [text(product["category"])]
    if product["sale_price"] != nil, product["sale_price"] != .null {
      details.append("on sale, regular price \(text(product["price"]))")
    }
    if let colors = product["colors"]?.arrayValue, !colors.isEmpty {
      details.append("colours " + colors.map { text($0) }.joined(separator: ", "))
    }
    if product["gift_card"] == .bool(true) {
      details.append(
        product["open_amount"] == .bool(true)
          ? "gift card: the amount is asked for (add --amount)" : "gift card")
    }
    if let barcodes = product["barcodes"]?.arrayValue, !barcodes.isEmpty {
      details.append("barcode " + barcodes.map { text($0) }.joined(separator: ", "))
    }
    return details
  }

  static func catalog(_ result: JSONValue) -> String {
    var out =
      "\(left("SKU", 14)) \(left("Name", 30)) \(right("Price", 9)) \(right("Stock", 6))  Tax\n"
    for product in result["products"]?.arrayValue ?? [] {
      let stockValue = product["stock"]
      let stock = stockValue == nil || stockValue == .null ? "-" : text(stockValue)
      var price = text(product["unit_price"])
      if product["sale_price"] != nil { price += "*" }
      out +=
        left(text(product["sku"]), 14) + " " + left(text(product["name"]), 30) + " "
        + right(price, 9) + " " + right(stock, 6) + "  " + text(product["tax_class"]) + "\n"
      out += "    " + productDetails(product).joined(separator: "; ") + "\n"
      if let groups = product["options"]?.arrayValue {
        for group in groups {
          let choices = (group["choices"]?.arrayValue ?? []).map { choice in
            let delta = text(choice["price_delta"])
            return text(choice["name"])
              + (delta.allSatisfy { $0 == "0" || $0 == "." } ? "" : " +\(delta)")
          }
          let required = group["required"] == .bool(true) ? " (required)" : ""
          out += "    \(text(group["group"]))\(required): \(choices.joined(separator: ", "))\n"
        }
      }
    }
    out += "* sale price (regular price in the JSON output); stock - = not tracked\n"
    // A catalog longer than a page (1000 products unless --limit says) comes page by page.
    if let remaining = result["remaining"],
      let last = result["products"]?.arrayValue?.last?["sku"]?.stringValue
    {
      out += "(\(describe(remaining)) more products; the next ones with --after \(last))\n"
    }
    let promotions = result["promotions"]?.arrayValue ?? []
    if !promotions.isEmpty { out += "Promotions (applied by the register)\n" }
    for promotion in promotions {
      var dates = ""
      if promotion["starts"] != nil || promotion["ends"] != nil {
        let starts = promotion["starts"]?.stringValue ?? "…"
        let ends = promotion["ends"]?.stringValue ?? "…"
        dates = " (\(starts) to \(ends))"
      }
      out += "  \(left(text(promotion["id"]), 16)) \(text(promotion["name"]))\(dates)\n"
    }
    return out
  }
}

extension String {
  fileprivate var capitalized: String {
    guard let first else { return self }
    return first.uppercased() + dropFirst()
  }
}
