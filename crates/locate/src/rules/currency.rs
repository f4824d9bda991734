//! The currency's rules. Currencies as a page prints them: an ISO 4217
//! code, a sign, or a written abbreviation, alone or glued to an amount;
//! each occurrence counts, a code in letters more than a sign, the one on
//! the total's line most; and the home country's money where the page
//! prints none or a bare `$`.

use serde_json::json;

use crate::country::HomeCountry;
use crate::lexicon;
use crate::proposal::Proposal;

/// What a currency printed in letters (a code or an abbreviation) scores
/// at least, and a one-character sign.
const IN_LETTERS: i32 = 15;
const SIGN: i32 = 10;
/// What a currency gains for being on a line with a total's label.
const ON_TOTAL_LINE: i32 = 40;
/// What the currency of the country a document is from scores: more than
/// a sign printed once or twice (OCR reads stray marks as signs), less
/// than a code or a sign on every amount.
const HOME_CURRENCY: i32 = 12;
/// The most a currency of another country than the document's scores on
/// a scan, off the total's line: less than the home country's.
const FOREIGN_ON_SCAN: i32 = 10;

/// A currency in letters (`RM`, `EUR`) scores at least 15, a one-character sign 10: a sign is likelier OCR's noise.
///
/// Each occurrence counts (merged by value); a labelled one more.
/// Measured: LOCATOR_VERSION 5, tuning and held-out receipts (with that
/// version's other rules: currency 42 → 54 and 53 → 78)
/// Test: a_receipt_gives_its_rounded_total_and_the_currency_on_the_total_line
pub(crate) fn currency_in_letters_outweighs_a_sign(word: &str, labelled: i32) -> i32 {
    labelled.max(if is_written(word) { IN_LETTERS } else { SIGN })
}

/// Whether a currency word is written in letters.
pub(crate) fn is_written(word: &str) -> bool {
    word.chars().any(char::is_alphabetic)
}

/// The home country's money is a candidate scoring 12, where the page prints no currency: prices at home need none.
///
/// The country is the one the document's words name most (a legal form, a
/// state, a town, a tax only some levy).
/// Measured: LOCATOR_VERSION 8, with a bare `$` as the home dollar (tuning
/// receipts +30, held-out +17, fresh +90)
/// Test: a_document_that_prints_no_currency_or_a_bare_dollar_is_in_its_home_countrys_money
pub(crate) fn home_countrys_money(home: HomeCountry) -> Proposal {
    Proposal {
        value: json!(home.currency),
        page: home.page,
        words: home.words,
        score: HOME_CURRENCY,
        amount: None,
    }
}

/// A bare `$` is the home country's dollar, where the document is from a country whose money is written `$`.
///
/// Measured: LOCATOR_VERSION 8, with the country a document is from
/// (tuning receipts +30, held-out +17, fresh +90)
/// Test: a_document_that_prints_no_currency_or_a_bare_dollar_is_in_its_home_countrys_money
pub(crate) fn bare_dollar_is_the_home_dollar(
    word: &str,
    code: &'static str,
    home: Option<&HomeCountry>,
) -> &'static str {
    match home.filter(|h| h.dollar) {
        Some(home) if is_bare_dollar(word) => home.currency,
        _ => code,
    }
}

/// On a scan, only a currency in letters takes the total's line: OCR reads stray marks as signs.
///
/// A row holds more of them than a line did.
/// Measured: LOCATOR_VERSION 9, with that version's second step (corpus
/// +6 / −1, pages +7, tuning receipts +10 / −2, held-out +6 / −2)
/// Test: a_stray_sign_on_a_scans_total_row_does_not_outweigh_the_currency_in_letters
pub(crate) fn takes_the_total_line(on_total_line: bool, word: &str, ocr: bool) -> bool {
    on_total_line && (is_written(word) || !ocr)
}

/// The currency on a line with a total's label gains 40: it is the total's.
///
/// Measured: LOCATOR_VERSION 5, tuning and held-out receipts (with that
/// version's other rules: currency 42 → 54 and 53 → 78)
/// Test: a_receipt_gives_its_rounded_total_and_the_currency_on_the_total_line
pub(crate) fn currency_on_the_total_line_gains(s: i32) -> i32 {
    s + ON_TOTAL_LINE
}

/// On a scan, another country's currency off the total's line scores at most 10, under the home country's 12.
///
/// More often a misread (`HRS` read `ARS`, a fuel's `RON95`) than its money.
/// Measured: LOCATOR_VERSION 12, tuning receipts (currency 372 → 381, 9 won,
/// none lost) and held-out (222 → 224)
/// Test: another_countrys_code_on_a_scan_off_the_total_line_does_not_outweigh_the_home_country
pub(crate) fn foreign_currency_on_a_scan_is_capped(
    code: &str,
    ocr: bool,
    home: Option<&HomeCountry>,
    s: i32,
) -> i32 {
    if ocr && home.is_some_and(|h| h.currency != code) {
        s.min(FOREIGN_ON_SCAN)
    } else {
        s
    }
}

/// A word as a currency: an ISO code as it is printed, or a sign.
pub(crate) fn currency(word: &str) -> Option<&'static str> {
    // Every code and abbreviation has a capital letter, and every sign a
    // `$` or a letter beyond ASCII: most words of a page have none.
    if !word
        .chars()
        .any(|c| c.is_ascii_uppercase() || c == '$' || !c.is_ascii())
    {
        return None;
    }
    let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
    if let Some(code) = lexicon::currency_code(bare) {
        return Some(code);
    }
    // A code glued to its amount: `EUR1,234.00`, `12.00EUR`.
    let capitals = || word.chars().filter(char::is_ascii_uppercase);
    let letters: String = if capitals().count() == 3 && word.chars().any(|c| c.is_ascii_digit()) {
        capitals().collect()
    } else {
        String::new()
    };
    if letters.len() == 3
        && (word.starts_with(&letters) || word.ends_with(&letters))
        && let Some(code) = lexicon::currency_code(&letters)
    {
        return Some(code);
    }
    // A sign glued to its amount: `RM80.90`, `Rs.319`, `Rp15.000`.
    for (sign, code) in [
        ("RM", "MYR"),
        ("Rs.", "INR"),
        ("Rs", "INR"),
        ("Rp.", "IDR"),
        ("Rp", "IDR"),
    ] {
        if let Some(rest) = word.strip_prefix(sign)
            && rest.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some(code);
        }
    }
    lexicon::currency_of_sign(word)
}

/// A currency counts where a sign stands alone or on an amount (`$`, `$8.20`, `12,00€`, `(RM)`), not inside another word (`$$21/39`, `€1-0170778`).
///
/// As [`currency`] reads it. OCR reads stray marks as signs, and a sign in
/// an address or a number says nothing about the total's currency. A code
/// in brackets at a label's end (`Amount(RM)`) is a column's currency.
/// Measured: LOCATOR_VERSION 5, tuning and held-out receipts (with that
/// version's other rules: currency 42 → 54 and 53 → 78)
/// Test: a_sign_counts_alone_or_on_an_amount_not_inside_another_word
pub(crate) fn printed_currency(word: &str) -> Option<&'static str> {
    let word = word
        .trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ':' | ';' | ',' | '"' | '\''));
    let Some(code) = currency(word) else {
        let (_, inside) = word.split_once(['(', '['])?;
        return currency(inside.trim_end_matches([')', ']']));
    };
    // Without the currency's letters and signs, nothing or an amount is left.
    let rest: String = word
        .chars()
        .filter(|c| !c.is_alphabetic() && !SIGNS.contains(*c))
        .collect();
    // `Rs.319`: the abbreviation's own full stop.
    let digits = rest
        .strip_prefix('-')
        .unwrap_or(&rest)
        .trim_start_matches('.');
    let amount = digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '\''));
    (rest.is_empty() || amount).then_some(code)
}

/// A bare `$`, with no letters that say whose dollar it is (`$8.20`,
/// not `US$8.20` or `C$10`).
pub(crate) fn is_bare_dollar(word: &str) -> bool {
    word.contains('$') && currency(word) == Some("USD") && !word.contains("US")
}

/// The characters of the currency signs [`lexicon::currency_of_sign`] knows.
const SIGNS: &str = "$€£₹¥₩₽₺₪₦₴₱₫฿";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currencies_are_codes_or_signs() {
        assert_eq!(currency("EUR"), Some("EUR"));
        assert_eq!(currency("(USD)"), Some("USD"));
        assert_eq!(currency("€4.904,94"), Some("EUR"));
        assert_eq!(currency("$4.11"), Some("USD"));
        assert_eq!(currency("C$10"), Some("CAD"));
        assert_eq!(currency("RM"), Some("MYR"));
        assert_eq!(currency("12.00EUR"), Some("EUR"));
        assert_eq!(currency("Rp15.000"), Some("IDR"));
        assert_eq!(currency("Rp"), Some("IDR"));
        assert_eq!(currency("R$10,00"), Some("BRL"));
        assert_eq!(currency("EURO"), None);
        assert_eq!(currency("Total"), None);
        assert!(is_bare_dollar("$8.20") && !is_bare_dollar("S$10"));
        assert!(!is_bare_dollar("US$8.20") && !is_bare_dollar("USD"));
    }

    #[test]
    fn a_sign_counts_alone_or_on_an_amount_not_inside_another_word() {
        for word in [
            "$",
            "$8.20",
            "€4.904,94",
            "12,00€",
            "RM",
            "(RM)",
            "RM80.90",
            "Rs.319",
            "EUR",
            "-$5.00",
        ] {
            assert!(printed_currency(word).is_some(), "{word}");
        }
        assert_eq!(printed_currency("Amount(RM)"), Some("MYR"));
        for word in [
            "$$21/39,47400",
            "€1-0170778",
            "$=",
            "20965-¥",
            "$).00",
            "Total",
            "(S)",
        ] {
            assert_eq!(printed_currency(word), None, "{word}");
        }
    }
}
