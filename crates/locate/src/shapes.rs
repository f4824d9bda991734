//! The shapes of values, checksums aside: an IBAN, a VAT number, a
//! plausible year. The locator tells values apart by them and the
//! consistency checks flag values that lack them.

/// The years a document's date may plausibly fall in: from 1980 to next
/// year (a due date runs ahead).
pub fn plausible_years() -> std::ops::RangeInclusive<i32> {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // A mean Gregorian year; a day's error at New Year is inside the margin.
    let this_year = 1970 + (seconds / 31_556_952) as i32;
    1980..=this_year + 1
}

/// Letters, digits and nothing else, upper case.
pub fn compact(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Whether `text` is an IBAN's shape (checksum aside): a country's two
/// letters, two check digits, then letters and digits, 15 to 34 in all.
pub fn has_iban_shape(text: &str) -> bool {
    let iban = compact(text);
    (15..=34).contains(&iban.len())
        && iban[..2].chars().all(|c| c.is_ascii_uppercase())
        && iban[2..4].chars().all(|c| c.is_ascii_digit())
}

/// The shapes of EU (and UK, Swiss) VAT numbers after their country
/// prefix: `9` a digit, `A` a letter, `X` either, anything else itself.
const VAT_SHAPES: &[(&str, &[&str])] = &[
    ("AT", &["U99999999"]),
    ("BE", &["9999999999"]),
    ("BG", &["999999999", "9999999999"]),
    ("CHE", &["999999999"]),
    ("CY", &["99999999A"]),
    ("CZ", &["99999999", "999999999", "9999999999"]),
    ("DE", &["999999999"]),
    ("DK", &["99999999"]),
    ("EE", &["999999999"]),
    ("EL", &["999999999"]),
    ("ES", &["X9999999X"]),
    ("FI", &["99999999"]),
    ("FR", &["XX999999999"]),
    ("GB", &["999999999", "999999999999", "GD999", "HA999"]),
    ("HR", &["99999999999"]),
    ("HU", &["99999999"]),
    ("IE", &["9X99999A", "9999999AA", "9999999A"]),
    ("IT", &["99999999999"]),
    ("LT", &["999999999", "999999999999"]),
    ("LU", &["99999999"]),
    ("LV", &["99999999999"]),
    ("MT", &["99999999"]),
    ("NL", &["999999999B99"]),
    ("PL", &["9999999999"]),
    ("PT", &["999999999"]),
    (
        "RO",
        &[
            "99",
            "999",
            "9999",
            "99999",
            "999999",
            "9999999",
            "99999999",
            "999999999",
            "9999999999",
        ],
    ),
    ("SE", &["999999999999"]),
    ("SI", &["99999999"]),
    ("SK", &["9999999999"]),
];

fn fits(shape: &str, text: &str) -> bool {
    shape.len() == text.len()
        && shape.chars().zip(text.chars()).all(|(s, c)| match s {
            '9' => c.is_ascii_digit(),
            'A' => c.is_ascii_alphabetic(),
            'X' => c.is_ascii_alphanumeric(),
            other => other == c,
        })
}

/// Whether `text` is a VAT number of its country's shape (`DE123456789`,
/// `FR 11 999999998`), not a national tax number.
pub fn is_vat_number(text: &str) -> bool {
    vat_shape(text).is_some_and(|(_, fits_shape)| fits_shape)
}

/// The VAT country prefix `text` starts with, and whether the rest has
/// that country's shape; `None` for no prefix, or only letters after it
/// (`DEPOSIT` is no VAT number).
pub fn vat_shape(text: &str) -> Option<(&'static str, bool)> {
    let vat = compact(text);
    let (country, shapes) = VAT_SHAPES
        .iter()
        .filter(|(country, _)| vat.starts_with(country))
        .max_by_key(|(country, _)| country.len())?;
    let rest = &vat[country.len()..];
    // `CHE-123.456.789 MWST`: the Swiss number may carry its tax's name.
    let rest = rest
        .strip_suffix("MWST")
        .or_else(|| rest.strip_suffix("TVA"))
        .or_else(|| rest.strip_suffix("IVA"))
        .unwrap_or(rest);
    if rest.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some((country, shapes.iter().any(|shape| fits(shape, rest))))
}
