//! The words that label a field on a page, by what the field is, in the
//! languages Sift reads (English, German, French, Dutch, Spanish,
//! Italian). A concept is chosen from the field's own words (its name's
//! and its description's), never from a document or a vendor: `total`
//! and "The total amount due" both mean [`Concept::Total`].

/// What a field holds, as far as its labels go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Concept {
    /// The amount to pay: total, grand total, amount due.
    Total,
    /// The amount before tax.
    Net,
    /// The tax amount.
    Tax,
    /// The document's own number.
    DocumentNumber,
    /// The document's (issue) date.
    IssueDate,
    /// When payment is due.
    DueDate,
    /// The currency of the amounts.
    Currency,
    /// Who issued the document: seller, vendor, merchant.
    Issuer,
    /// A tax or VAT identification number.
    TaxId,
    /// A bank account's IBAN.
    Iban,
}

/// Every concept, for what is built from all their labels.
pub(crate) const CONCEPTS: &[Concept] = &[
    Concept::Total,
    Concept::Net,
    Concept::Tax,
    Concept::DocumentNumber,
    Concept::IssueDate,
    Concept::DueDate,
    Concept::Currency,
    Concept::Issuer,
    Concept::TaxId,
    Concept::Iban,
];

/// Words of a field's name (else its description) that select a concept,
/// tried in order.
const SELECTORS: &[Selector] = &[
    Selector(Concept::Iban, &["iban"], &[], &[]),
    Selector(Concept::Currency, &["currency", "currencies"], &[], &[]),
    Selector(
        Concept::TaxId,
        &["vat", "tax", "gst", "ustid", "siret", "siren"],
        &[
            "id",
            "number",
            "no",
            "nr",
            "registration",
            "identification",
            "ustid",
            "siret",
            "siren",
        ],
        &["amount", "total", "sum", "rate", "percent"],
    ),
    Selector(
        Concept::Tax,
        &["tax", "vat", "gst", "mwst"],
        &[],
        &["rate", "percent"],
    ),
    Selector(
        Concept::Net,
        &["subtotal", "net", "untaxed"],
        &[],
        &["weight"],
    ),
    Selector(
        Concept::Total,
        &[
            "total", "amount", "sum", "gross", "grand", "payable", "balance",
        ],
        &[],
        &[
            "tax", "vat", "net", "subtotal", "discount", "shipping", "unit", "line", "item", "tip",
        ],
    ),
    Selector(
        Concept::DueDate,
        &["due"],
        &[],
        &["amount", "total", "balance"],
    ),
    Selector(
        Concept::IssueDate,
        &["date", "issued", "dated"],
        &[],
        &[
            "due", "delivery", "birth", "order", "start", "end", "expiry",
        ],
    ),
    Selector(
        Concept::DocumentNumber,
        &[
            "number",
            "no",
            "nr",
            "id",
            "invoice",
            "receipt",
            "reference",
            "ref",
            "bill",
        ],
        &[],
        &[
            "phone",
            "order",
            "customer",
            "account",
            "iban",
            "telephone",
            "fax",
            "buyer",
        ],
    ),
    Selector(
        Concept::Issuer,
        &[
            "seller", "vendor", "merchant", "supplier", "company", "issuer", "store", "shop",
        ],
        &[],
        &[
            "address",
            "id",
            "number",
            "phone",
            "email",
            "buyer",
            "billed",
            "customer",
            "recipient",
        ],
    ),
];

/// A concept, the words any of which select it, the words one of which
/// must also be there (none listed: no such need), and the words none of
/// which may be there (a `tax_amount` is not the total).
struct Selector(
    Concept,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

/// The concept of a field with these words (lower case), if any: the
/// first selector that matches.
pub(crate) fn concept_of(words: &[String]) -> Option<Concept> {
    let has = |w: &&str| words.iter().any(|x| x == w);
    SELECTORS
        .iter()
        .find(|Selector(_, any, needs, none)| {
            any.iter().any(has)
                && (needs.is_empty() || needs.iter().any(has))
                && !none.iter().any(has)
        })
        .map(|Selector(concept, ..)| *concept)
}

/// The page labels of a concept, each as its words (lower case, marks
/// dropped: `N°` is `n`), in every language Sift reads.
pub(crate) fn labels(concept: Concept) -> &'static [&'static str] {
    match concept {
        Concept::Total => &[
            "total",
            "bruttosumme",
            "rechnungssumme brutto",
            "inclusive of gst",
            "inclusive of tax",
            "inclusive of vat",
            "incl gst",
            "including gst",
            "inclusive gst",
            "total payable",
            "incl of gst",
            "incl of tax",
            "incl of vat",
            "includes gst",
            "includes tax",
            "includes vat",
            "total after adj",
            "total after adjustment",
            "total after rounding",
            "after rounding",
            "rounded total",
            "total rounded",
            "net payable",
            "amount to pay",
            "total sales inclusive of gst",
            "grand total",
            "total due",
            "amount due",
            "balance due",
            "amount payable",
            "total amount",
            "invoice total",
            "total to pay",
            "total incl",
            "incl vat",
            "incl tax",
            "including vat",
            "including tax",
            "gross",
            "gesamtbetrag",
            "gesamtsumme",
            "rechnungsbetrag",
            "endbetrag",
            "zahlbetrag",
            "zu zahlen",
            "gesamt",
            "summe",
            "brutto",
            "bruttobetrag",
            "inkl mwst",
            "inkl ust",
            "total ttc",
            "ttc",
            "montant ttc",
            "net à payer",
            "net a payer",
            "à payer",
            "montant total",
            "totaal",
            "totaalbedrag",
            "te betalen",
            "incl btw",
            "importe total",
            "total a pagar",
            "importe",
            "totale",
            "importo totale",
            "totale documento",
            "da pagare",
            "totale fattura",
        ],
        Concept::Net => &[
            "subtotal",
            "ohne ust",
            "ohne mwst",
            "excluding gst",
            "exclusive of gst",
            "excl gst",
            "excluding tax",
            "excluding vat",
            "before tax",
            "hors taxes",
            "total excl",
            "exkl",
            "positionssumme",
            "warenwert",
            "sub total",
            "net",
            "net amount",
            "total net",
            "excl vat",
            "excl tax",
            "zwischensumme",
            "nettobetrag",
            "netto",
            "summe netto",
            "total ht",
            "ht",
            "montant ht",
            "sous total",
            "subtotaal",
            "excl btw",
            "base imponible",
            "imponibile",
        ],
        Concept::Tax => &[
            "tax",
            "vat",
            "sales tax",
            "gst",
            "mwst",
            "ust",
            "umsatzsteuer",
            "mehrwertsteuer",
            "tva",
            "btw",
            "iva",
        ],
        Concept::DocumentNumber => &[
            "invoice number",
            "no",
            "bill",
            "doc no",
            "tax invoice no",
            "invoice no",
            "invoice",
            "invoice id",
            "inv no",
            "bill no",
            "bill number",
            "receipt no",
            "receipt number",
            "receipt",
            "document no",
            "document number",
            "credit note",
            "rechnungsnummer",
            "rechnungsnr",
            "rechnung no",
            "rechnungs nr",
            "rechnung",
            "belegnummer",
            "beleg no",
            "gutschrift no",
            "numéro de facture",
            "numero de facture",
            "no de facture",
            "facture no",
            "facture",
            "avoir no",
            "avoir",
            "factuurnummer",
            "factuurnr",
            "factuur no",
            "factuur",
            "número de factura",
            "numero de factura",
            "factura no",
            "factura",
            "numero fattura",
            "fattura no",
            "fattura",
        ],
        Concept::IssueDate => &[
            "date",
            "vom",
            "facture du",
            "factura del",
            "fattura del",
            "invoice date",
            "date of issue",
            "issue date",
            "issued",
            "dated",
            "billing date",
            "bill date",
            "receipt date",
            "rechnungsdatum",
            "datum",
            "belegdatum",
            "ausstellungsdatum",
            "date de facture",
            "date facture",
            "date d émission",
            "factuurdatum",
            "fecha",
            "fecha de factura",
            "fecha factura",
            "data",
            "data fattura",
        ],
        Concept::DueDate => &[
            "due date",
            "due",
            "payment due",
            "due by",
            "fällig",
            "fällig am",
            "fälligkeitsdatum",
            "zahlbar bis",
            "échéance",
            "date d échéance",
            "vervaldatum",
            "vencimiento",
            "fecha de vencimiento",
            "scadenza",
        ],
        Concept::Currency => &["currency", "währung", "devise", "valuta", "moneda"],
        Concept::Issuer => &[
            "seller",
            "vendor",
            "supplier",
            "from",
            "merchant",
            "verkäufer",
            "lieferant",
            "vendeur",
            "fournisseur",
            "leverancier",
            "proveedor",
            "fornitore",
        ],
        Concept::TaxId => &[
            "vat id",
            "vat no",
            "tax no",
            "service tax no",
            "tin",
            "tin no",
            "pan",
            "pan no",
            "cst no",
            "gstin",
            "vat number",
            "vat reg no",
            "tax id",
            "gst no",
            "gst id",
            "ust id",
            "ust idnr",
            "ustidnr",
            "steuernummer",
            "no tva",
            "tva intracommunautaire",
            "btw nummer",
            "btw no",
            "nif",
            "cif",
            "partita iva",
        ],
        Concept::Iban => &["iban"],
    }
}

/// Labels that govern a value as something else: a `Subtotal` before an
/// amount says it is not the total.
pub(crate) fn rival_labels(concept: Concept) -> Vec<&'static str> {
    let rivals: &[Concept] = match concept {
        Concept::Total => &[Concept::Net, Concept::Tax],
        Concept::Net => &[Concept::Total, Concept::Tax],
        Concept::Tax => &[Concept::Total, Concept::Net],
        Concept::IssueDate => &[Concept::DueDate],
        Concept::DueDate => &[Concept::IssueDate],
        Concept::DocumentNumber => &[
            Concept::TaxId,
            Concept::IssueDate,
            Concept::DueDate,
            Concept::Total,
            Concept::Net,
            Concept::Tax,
        ],
        _ => &[],
    };
    let mut out: Vec<&'static str> = rivals.iter().flat_map(|c| labels(*c)).copied().collect();
    let extra: &[&str] = match concept {
        Concept::IssueDate | Concept::DueDate => &[
            "delivery",
            "delivery date",
            "order date",
            "lieferdatum",
            "leistungsdatum",
            "bestelldatum",
            "date de livraison",
            "date de commande",
            "leverdatum",
            "besteldatum",
            "period",
            "zeitraum",
            "période",
            "printed",
            "birth",
            "abrechnungszeitraum",
            "bis",
            "until",
            "associée",
        ],
        Concept::DocumentNumber => &[
            "order",
            "order no",
            "order number",
            "customer",
            "customer no",
            "customer number",
            "account",
            "account no",
            "phone",
            "tel",
            "fax",
            "bestellnummer",
            "kundennummer",
            "auftrag",
            "commande",
            "client",
            "klant",
            "klantnummer",
            "bestelling",
            "pedido",
            "cliente",
            "ordine",
            "page",
            "seite",
            "contract",
            "vertrag",
            "kundennr",
            "bestellnr",
            "auftragsnr",
            "lieferschein",
            "delivery note",
            "gln",
            "steuernr",
            "ktonr",
            "associée",
            "cashier",
            "table",
            "member",
            "tel no",
            "phone no",
            "fax no",
            "telephone no",
            "reg no",
            "registration no",
            "company no",
            "co no",
            "roc no",
            "gst reg no",
            "gst id",
            "vat reg no",
            "id no",
            "card no",
            "approval no",
            "ref no",
        ],
        Concept::Total => &[
            "discount",
            "savings",
            "you save",
            "rabatt",
            "shipping",
            "versand",
            "paid",
            "bezahlt",
            "payé",
            "change",
            "rounding",
            "cash",
            "tendered",
            "rundung",
            "qty",
            "quantity",
            "items",
            "item",
            "menge",
            "anzahl",
            "quantité",
            "pcs",
            "zuschläge",
            "abschläge",
            "zuschlag",
            "abschlag",
            "surcharge",
            "allowance",
            "deposit",
            "prepaid",
            "anzahlung",
        ],
        _ => &[],
    };
    out.extend_from_slice(extra);
    out
}

/// The words of a rounding line, folded, in the languages Sift reads: the
/// total printed below one is the rounded total, the amount paid.
pub(crate) const ROUNDING_WORDS: &[&str] = &[
    "rounding",
    "rounded",
    "adj",
    "adjustment",
    "rundung",
    "arrondi",
    "redondeo",
    "arrotondamento",
    "afronding",
];

/// ISO 4217 codes a page may print, and the signs that stand for one
/// (a bare `$` for the US dollar, as evidence reads it).
pub(crate) const CURRENCY_CODES: &[&str] = &[
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "INR", "PLN", "CZK", "HUF", "SEK", "NOK", "DKK",
    "RON", "BGN", "TRY", "RUB", "UAH", "CAD", "AUD", "NZD", "SGD", "HKD", "MYR", "IDR", "THB",
    "PHP", "VND", "KRW", "MXN", "BRL", "ARS", "CLP", "COP", "ZAR", "AED", "SAR", "ILS", "EGP",
    "NGN", "KES", "PKR", "BDT", "LKR", "TWD",
];

/// The currency a sign stands for.
pub(crate) fn currency_of_sign(word: &str) -> Option<&'static str> {
    // The longest signs first: `US$` before `$`.
    const SIGNS: &[(&str, &str)] = &[
        ("US$", "USD"),
        ("C$", "CAD"),
        ("CA$", "CAD"),
        ("A$", "AUD"),
        ("AU$", "AUD"),
        ("NZ$", "NZD"),
        ("S$", "SGD"),
        ("HK$", "HKD"),
        ("R$", "BRL"),
        ("€", "EUR"),
        ("£", "GBP"),
        ("₹", "INR"),
        ("¥", "JPY"),
        ("₩", "KRW"),
        ("₽", "RUB"),
        ("zł", "PLN"),
        ("₺", "TRY"),
        ("₪", "ILS"),
        ("₦", "NGN"),
        ("₴", "UAH"),
        ("₱", "PHP"),
        ("₫", "VND"),
        ("฿", "THB"),
        ("$", "USD"),
    ];
    // Every sign has a `$` or a letter beyond ASCII: most words have neither.
    let may_hold_a_sign = word.chars().any(|c| c == '$' || !c.is_ascii());
    for (sign, code) in SIGNS.iter().filter(|_| may_hold_a_sign) {
        if let Some(at) = word.find(sign) {
            // `C$` is not a bare `$`: the sign starts the word or follows
            // what is not a letter.
            let letter = |c: Option<char>| c.is_some_and(char::is_alphabetic);
            if !letter(word[..at].chars().next_back())
                && !letter(word[at + sign.len()..].chars().next())
            {
                return Some(code);
            }
        }
    }
    // Written abbreviations, as whole words.
    match word.trim_matches(|c: char| !c.is_alphanumeric()) {
        "Rs" | "INR" => Some("INR"),
        "RM" => Some("MYR"),
        "Rp" => Some("IDR"),
        "Fr" | "SFr" => Some("CHF"),
        "Kč" => Some("CZK"),
        _ => None,
    }
}
