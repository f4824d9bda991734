//! What a field is, and the words that label it on a page. A concept is
//! chosen from the field's own words (its name's and its description's),
//! never from a document or a vendor: `total` and "The total amount due"
//! both mean [`Concept::Total`]. The selectors that choose it stay here:
//! they read a schema's field names, which are English identifiers
//! (`invoice_number`, `dueDate`) whatever the documents' language. The
//! labels a page prints, in the languages Sift reads (English, German,
//! French, Dutch, Spanish, Italian), are data, one file per language in
//! `crates/locate/languages/` (read by `languages.rs`). ISO 4217 codes and
//! currency signs stay here too: they are no language's words, and their
//! reading (the longest sign first, a sign not inside a word) is code.

use std::sync::OnceLock;

use foldhash::HashSet;

use crate::languages::lexicon;

pub(crate) use crate::concept::CONCEPTS;
pub use crate::concept::Concept;

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
    Selector(
        Concept::Buyer,
        &[
            "buyer",
            "customer",
            "client",
            "billed",
            "recipient",
            "purchaser",
        ],
        &[],
        &[
            "number",
            "no",
            "nr",
            "id",
            "vat",
            "tax",
            "address",
            "email",
            "phone",
            "iban",
            "reference",
            "ref",
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
/// dropped: `N°` is `no`), in every language Sift reads: the `[labels]`
/// of `crates/locate/languages/*.toml`.
pub(crate) fn labels(concept: Concept) -> &'static [&'static str] {
    lexicon().labels(concept)
}

/// Labels that govern a value as something else: a `Subtotal` before an
/// amount says it is not the total. The rival concepts' labels, then the
/// language files' `[not_labels]` for the concept.
pub(crate) fn rival_labels(concept: Concept) -> Vec<&'static str> {
    let rivals: &[Concept] = match concept {
        // `GST No. : 000584089600` is a tax id, no amount.
        Concept::Total => &[Concept::Net, Concept::Tax, Concept::TaxId],
        Concept::Net => &[Concept::Total, Concept::Tax, Concept::TaxId],
        Concept::Tax => &[Concept::Total, Concept::Net, Concept::TaxId],
        Concept::IssueDate => &[Concept::DueDate],
        Concept::DueDate => &[Concept::IssueDate],
        Concept::Issuer => &[Concept::Buyer],
        Concept::Buyer => &[Concept::Issuer],
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
    out.extend_from_slice(lexicon().not_labels(concept));
    out
}

/// The words of a rounding line, folded, in the languages Sift reads: the
/// total printed below one is the rounded total, the amount paid.
pub(crate) fn rounding_words() -> &'static [&'static str] {
    &lexicon().rounding
}

/// The words heading a line-item table's quantities, folded (lower case),
/// in the languages Sift reads (`qty`, `menge`, `qté`): which of a line's
/// two factors is its quantity, where both read as one.
pub fn quantity_headings() -> &'static [&'static str] {
    &lexicon().quantity_headings
}

/// ISO 4217 codes a page may print, and the signs that stand for one
/// (a bare `$` for the US dollar, as evidence reads it).
pub(crate) const CURRENCY_CODES: &[&str] = &[
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "INR", "PLN", "CZK", "HUF", "SEK", "NOK", "DKK",
    "RON", "BGN", "TRY", "RUB", "UAH", "CAD", "AUD", "NZD", "SGD", "HKD", "MYR", "IDR", "THB",
    "PHP", "VND", "KRW", "MXN", "BRL", "ARS", "CLP", "COP", "ZAR", "AED", "SAR", "ILS", "EGP",
    "NGN", "KES", "PKR", "BDT", "LKR", "TWD",
];

/// The ISO 4217 code `text` is, of [`CURRENCY_CODES`]: looked up, not
/// compared with each (every capitalised three-letter word is asked).
pub(crate) fn currency_code(text: &str) -> Option<&'static str> {
    static CODES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    if text.len() != 3 {
        return None;
    }
    CODES
        .get_or_init(|| CURRENCY_CODES.iter().copied().collect())
        .get(text)
        .copied()
}

/// A character of some sign of [`currency_of_sign`]'s: an array, not a
/// string searched, as every word beyond ASCII is asked.
const SIGN_CHARACTERS: [char; 15] = [
    '$', '€', '£', '₹', '¥', '₩', '₽', 'ł', '₺', '₪', '₦', '₴', '₱', '₫', '฿',
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
    // Every sign has one of these characters: most words have none (an
    // accented letter is no sign).
    // All but `$` are beyond ASCII, so an ASCII word is only looked at for that.
    let may_hold_a_sign = word.contains('$')
        || (!word.is_ascii() && word.chars().any(|c| SIGN_CHARACTERS.contains(&c)));
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
