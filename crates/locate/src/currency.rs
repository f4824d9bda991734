//! Currencies as a page prints them: an ISO 4217 code, a sign, or a
//! written abbreviation, alone or glued to an amount.

use super::lexicon;

/// A word as a currency: an ISO code as it is printed, or a sign.
pub(super) fn currency(word: &str) -> Option<&'static str> {
    // Every code and abbreviation has a capital letter, and every sign a
    // `$` or a letter beyond ASCII: most words of a page have none.
    if !word
        .chars()
        .any(|c| c.is_ascii_uppercase() || c == '$' || !c.is_ascii())
    {
        return None;
    }
    let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
    if bare.len() == 3
        && let Some(code) = lexicon::CURRENCY_CODES.iter().find(|c| **c == bare)
    {
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
        && let Some(code) = lexicon::CURRENCY_CODES.iter().find(|c| **c == letters)
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

/// A currency [`currency`] reads, where a sign stands alone or on an amount
/// (`$`, `$8.20`, `12,00€`, `(RM)`), not inside another word (`$$21/39`,
/// `€1-0170778`, `$=`): OCR reads stray marks as signs, and a sign in an
/// address or a number says nothing about the total's currency. A code in
/// brackets at a label's end (`Amount(RM)`) is a column's currency.
pub(super) fn printed_currency(word: &str) -> Option<&'static str> {
    let word = word.trim_matches(|c: char| "()[]:;,\"'".contains(c));
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
            .all(|c| c.is_ascii_digit() || ".,'".contains(c));
    (rest.is_empty() || amount).then_some(code)
}

/// A bare `$`, with no letters that say whose dollar it is (`$8.20`,
/// not `US$8.20` or `C$10`).
pub(super) fn is_bare_dollar(word: &str) -> bool {
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
