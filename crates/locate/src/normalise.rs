//! Values made comparable: dates as `yyyy-mm-dd`, amounts as numbers,
//! anything else without case and whitespace.

use std::borrow::Cow;
use std::sync::OnceLock;

use foldhash::HashMap;

use serde_json::Value;

/// A value made comparable.
#[derive(Debug, Clone, PartialEq)]
pub enum Normalized {
    /// `yyyy-mm-dd`.
    Date(String),
    /// An amount or other number, without its currency and thousands separators.
    Number(f64),
    /// Lower case, without whitespace.
    Text(String),
}

/// Normalises one value (see the module docs).
pub fn normalize(value: &str) -> Normalized {
    let value = value.trim();
    // A date in brackets, as a receipt prints it: `(06/12/2016)`.
    if let Some(date) = normalize_date(value.trim_start_matches('(').trim_end_matches(')')) {
        return Normalized::Date(date);
    }
    if let Some(number) = normalize_amount(value) {
        return Normalized::Number(number);
    }
    Normalized::Text(
        value
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect(),
    )
}

/// A text as names and codes are compared across sources: its letters and
/// digits only, lower case (`Acme GmbH` and `ACME-GMBH` are one).
pub fn alphanumeric_key(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Each month's names (`january`, `jan`, `januar`, `janvier`) with its
/// number: the language files' `months`.
pub(crate) fn months() -> &'static [(&'static str, u32)] {
    &crate::languages::lexicon().months
}

pub(crate) fn month_named(token: &str) -> Option<u32> {
    // Most tokens are ASCII: lower-cased on the stack and looked up, not
    // lower-cased into a new string and compared with every name (the
    // same answer: the first name given of equal ones).
    if token.is_ascii() {
        let mut lower = [0u8; MONTH_NAME_AT_MOST];
        let lower = lower.get_mut(..token.len())?;
        for (l, t) in lower.iter_mut().zip(token.bytes()) {
            *l = t.to_ascii_lowercase();
        }
        let lower = std::str::from_utf8(lower).ok()?;
        return month_numbers().get(lower).copied();
    }
    let token = token.to_lowercase();
    months().iter().find(|(n, _)| *n == token).map(|(_, m)| *m)
}

/// The longest month name [`month_numbers`] may hold, in bytes: a longer
/// ASCII token is none.
const MONTH_NAME_AT_MOST: usize = 32;

/// Each month's name (of [`MONTH_NAME_AT_MOST`] bytes or fewer, as all
/// are: a test holds it) with its number, the first given where a name
/// is given twice.
fn month_numbers() -> &'static HashMap<&'static str, u32> {
    static NUMBERS: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();
    NUMBERS.get_or_init(|| {
        let mut numbers = HashMap::default();
        for (name, month) in months() {
            if name.len() <= MONTH_NAME_AT_MOST {
                numbers.entry(*name).or_insert(*month);
            }
        }
        numbers
    })
}

/// The three parts of `text` split at `separator`, or `None` for more or
/// fewer (without collecting them: every amount is asked).
pub(crate) fn three_parts(text: &str, separator: char) -> Option<[&str; 3]> {
    let mut parts = text.split(separator);
    let three = [parts.next()?, parts.next()?, parts.next()?];
    parts.next().is_none().then_some(three)
}

fn ymd(year: &str, month: u32, day: &str) -> Option<String> {
    let day: u32 = day.parse().ok()?;
    let mut year_n: u32 = year.parse().ok()?;
    if year.len() == 2 {
        year_n += 2000;
    } else if year.len() != 4 {
        return None;
    }
    ((1..=12).contains(&month) && (1..=31).contains(&day) && day <= days_in(month, year_n))
        .then(|| format!("{year_n:04}-{month:02}-{day:02}"))
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A date as `yyyy-mm-dd`, or `None` when `value` is not one.
pub fn normalize_date(value: &str) -> Option<String> {
    let value = value.trim();
    // An ISO date-time: its date.
    let value = match value.split_once('T') {
        Some((date, _)) if date.len() == 10 && date.as_bytes().get(4) == Some(&b'-') => date,
        _ => value,
    };
    let all_numeric = value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '-' | '/' | '.'));
    if all_numeric {
        // One kind of separator, used twice: `1.021,91` is not a date.
        let mut separators = value.chars().filter(|c| !c.is_ascii_digit());
        let (Some(separator), Some(second), None) =
            (separators.next(), separators.next(), separators.next())
        else {
            return None;
        };
        if second != separator {
            return None;
        }
        let [a, b, c] = three_parts(value, separator)?;
        if a.len() == 4 {
            return ymd(a, b.parse().ok()?, c);
        }
        if a.len() > 2 || b.len() > 2 || !(c.len() == 4 || c.len() == 2) {
            return None;
        }
        let (first, second): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
        // Day first, unless only month-first makes sense (US `mm/dd/yyyy`).
        return if second > 12 && first <= 12 {
            ymd(c, first, b)
        } else {
            ymd(c, second, a)
        };
    }
    // With a month's name: `3 August 2014`, `3. Aug. 2014`, `August 3, 2014`, `03-Aug-2014`.
    let mut split = date_parts(value);
    let tokens = [split.next()?, split.next()?, split.next()?];
    if split.next().is_some() {
        return None;
    }
    let month_at = tokens.iter().position(|t| month_named(t).is_some())?;
    let month = month_named(tokens[month_at])?;
    let [x, y] = match month_at {
        0 => [tokens[1], tokens[2]],
        1 => [tokens[0], tokens[2]],
        _ => [tokens[0], tokens[1]],
    };
    let (day, year) = if x.len() == 4 { (y, x) } else { (x, y) };
    let day = day
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .trim();
    if !day.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    ymd(year, month, day)
}

/// The parts of a date written with a month's name, as [`normalize_date`]
/// reads them: between spaces and `,./-`.
pub(crate) fn date_parts(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | '/' | '-'))
        .filter(|part| !part.is_empty())
}

/// An amount as a number, or `None` when `value` is not one. Currency
/// symbols and codes around it are dropped; with both `.` and `,` the last
/// is the decimal mark; a lone `,` before exactly three digits, or a mark
/// used more than once, groups thousands.
pub fn normalize_amount(value: &str) -> Option<f64> {
    let value = value.trim();
    let first = value.find(|c: char| c.is_ascii_digit())?;
    let last = value.rfind(|c: char| c.is_ascii_digit())?;
    let (prefix, core, suffix) = (&value[..first], &value[first..=last], &value[last + 1..]);
    let (negative, prefix) = match prefix.trim_end().strip_suffix('-') {
        Some(rest) => (true, rest),
        None => (false, prefix.trim_end().strip_suffix('+').unwrap_or(prefix)),
    };
    // What surrounds the number may only be a currency: `€`, `US$`, `EUR`.
    let currency = |affix: &str| {
        let affix = affix.trim();
        affix.chars().count() <= 4
            && affix.chars().all(|c| {
                c.is_alphabetic() || matches!(c, '€' | '$' | '£' | '¥' | '₹' | '₽' | '₩' | '¢')
            })
    };
    if !currency(prefix) || !currency(suffix.trim_end_matches('.')) {
        return None;
    }
    if !core
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '\'' | ' ' | '\u{a0}' | '\u{202f}'))
    {
        return None;
    }
    // A space or apostrophe groups thousands: each group after the first
    // has three digits, so `538 00` is two numbers, not 53800. After a
    // decimal mark it is only a gap OCR left (`39. 80`). A group with its
    // decimals ends the number: `120,00 120,00` is two amounts.
    let group_mark = |c: char| matches!(c, '\'' | ' ' | '\u{a0}' | '\u{202f}');
    // Each group with the one after it (every amount is asked: not collected).
    let mut groups = core.split(group_mark);
    let mut previous = groups.next().unwrap_or_default();
    let grouped = groups.all(|group| {
        let before = std::mem::replace(&mut previous, group);
        if before.ends_with(['.', ',']) {
            return true;
        }
        let has_decimals = before.contains(['.', ',']) && {
            let tail = before.rsplit(['.', ',']).next().unwrap_or("");
            tail.len() != 3
        };
        !has_decimals && group.bytes().take_while(u8::is_ascii_digit).count() == 3
    });
    if !grouped {
        return None;
    }
    // A new string only where there are marks to drop.
    let core: Cow<'_, str> = if core.contains(group_mark) {
        core.chars()
            .filter(|c| !group_mark(*c))
            .collect::<String>()
            .into()
    } else {
        core.into()
    };
    // Two marks in a row separate nothing: `7..00` is no one number.
    if core
        .as_bytes()
        .windows(2)
        .any(|pair| pair == b".." || pair == b",,")
    {
        return None;
    }
    let dots = core.bytes().filter(|b| *b == b'.').count();
    let commas = core.bytes().filter(|b| *b == b',').count();
    let decimal = match (dots, commas) {
        (0, 0) => None,
        (_, 0) if dots > 1 => None,
        (0, _) if commas > 1 => None,
        (1, 0) => Some('.'),
        (0, 1) => {
            let after = core.len() - core.find(',')? - 1;
            (after != 3).then_some(',')
        }
        _ => {
            let last_dot = core.rfind('.')?;
            let last_comma = core.rfind(',')?;
            let mark = if last_dot > last_comma { '.' } else { ',' };
            if core.matches(mark).count() > 1 {
                return None;
            }
            Some(mark)
        }
    };
    // Digits and a decimal point already (`12.50`): read as they are.
    let plain_already = core
        .bytes()
        .all(|b| b.is_ascii_digit() || (b == b'.' && decimal == Some('.')));
    if plain_already {
        let number: f64 = core.parse().ok()?;
        return Some(if negative { -number } else { number });
    }
    let plain: String = core
        .chars()
        .filter_map(|c| match c {
            '0'..='9' => Some(c),
            c if Some(c) == decimal => Some('.'),
            _ => None,
        })
        .collect();
    let number: f64 = plain.parse().ok()?;
    Some(if negative { -number } else { number })
}

/// A result value as text to normalise: strings as they are, numbers and
/// booleans as JSON writes them; null or missing as empty.
fn value_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Whether a result value matches a truth cell after normalisation.
pub fn matches(truth: &str, value: Option<&Value>) -> bool {
    let got = value_text(value);
    if got.trim().is_empty() {
        return truth.trim().is_empty();
    }
    match (normalize(truth), normalize(&got)) {
        (Normalized::Number(a), Normalized::Number(b)) => {
            (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
        }
        (Normalized::Date(a), Normalized::Date(b)) => a == b,
        // A date written without separators (`20180304`, `25032018`) is
        // a number to read alone, but beside a date it is one.
        (Normalized::Date(date), Normalized::Number(_)) => compact_dates(&got).contains(&date),
        (Normalized::Number(_), Normalized::Date(date)) => compact_dates(truth).contains(&date),
        (a, b) => text_of(&a) == text_of(&b),
    }
}

/// The dates eight digits can be: `yyyymmdd` (ISO 8601's basic form) or
/// `ddmmyyyy`.
fn compact_dates(text: &str) -> Vec<String> {
    let digits = text.trim();
    if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let month = |at: usize| digits[at..at + 2].parse().ok();
    let readings = [
        month(4).and_then(|m| ymd(&digits[..4], m, &digits[6..])),
        month(2).and_then(|m| ymd(&digits[4..], m, &digits[..2])),
    ];
    readings.into_iter().flatten().collect()
}

fn text_of(n: &Normalized) -> String {
    match n {
        Normalized::Date(d) => d.clone(),
        Normalized::Number(x) => x.to_string(),
        Normalized::Text(t) => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_month_name_is_looked_up() {
        for (name, month) in months() {
            assert!(name.len() <= MONTH_NAME_AT_MOST, "{name}");
            let first = months().iter().find(|(n, _)| n == name).map(|(_, m)| *m);
            assert_eq!(month_named(&name.to_uppercase()), first, "{name} ({month})");
        }
    }

    #[test]
    fn dates_normalise_to_iso() {
        for (input, iso) in [
            ("2014-08-03", "2014-08-03"),
            ("2014-08-03T10:00:00Z", "2014-08-03"),
            ("2014/08/03", "2014-08-03"),
            ("03/08/2014", "2014-08-03"),
            ("3.8.2014", "2014-08-03"),
            ("03-08-2014", "2014-08-03"),
            ("08/31/2014", "2014-08-31"),
            ("3 August 2014", "2014-08-03"),
            ("3. Aug. 2014", "2014-08-03"),
            ("August 3, 2014", "2014-08-03"),
            ("Aug 3rd, 2014", "2014-08-03"),
            ("03-Aug-2014", "2014-08-03"),
            ("20 octobre 2015", "2015-10-20"),
            ("9. März 2017", "2017-03-09"),
            ("03.08.14", "2014-08-03"),
        ] {
            assert_eq!(normalize_date(input).as_deref(), Some(iso), "{input}");
        }
        for input in [
            "1.021,91",
            "1,021.91",
            "31/02/2014",
            "42183017",
            "12.500.000",
            "Amazon",
        ] {
            assert_eq!(normalize_date(input), None, "{input}");
        }
    }

    #[test]
    fn amounts_normalise_to_numbers() {
        for (input, number) in [
            ("1.021,91", 1021.91),
            ("1,021.91", 1021.91),
            ("€ 12.50", 12.5),
            ("12.5", 12.5),
            ("12,50 €", 12.5),
            ("USD 4.11", 4.11),
            ("$4.11", 4.11),
            ("319.0", 319.0),
            ("₹319", 319.0),
            ("1,000", 1000.0),
            ("1.000.000", 1_000_000.0),
            ("1 234,5", 1234.5),
            ("12 345 678", 12_345_678.0),
            ("1'234.50", 1234.5),
            ("39. 80", 39.8),
            ("-7.25", -7.25),
            ("42183017", 42_183_017.0),
        ] {
            assert_eq!(normalize_amount(input), Some(number), "{input}");
        }
        // A space groups thousands in threes: `538 00` is no one number.
        for input in [
            "Amazon",
            "INV-2014-1",
            "1.2.3,4,5",
            "",
            "538 00",
            "12 3456",
            "120,00 120,00",
            "59,24 316,83",
            "7..00",
        ] {
            assert_eq!(normalize_amount(input), None, "{input}");
        }
    }

    #[test]
    fn text_ignores_case_and_spaces() {
        assert_eq!(
            normalize(" # BLR_wfld 2015 "),
            Normalized::Text("#blr_wfld2015".into())
        );
        assert!(matches(
            "#BLR_WFLD20151000982590",
            Some(&json!("# blr_WFLD20151000982590"))
        ));
        assert!(matches("USD", Some(&json!("usd"))));
        assert!(!matches("USD", Some(&json!("EUR"))));
        assert!(matches("4.11", Some(&json!(4.11))));
        assert!(matches("319.0", Some(&json!(319))));
        assert!(matches("1.021,91", Some(&json!("1,021.91"))));
        assert!(matches("2014-08-03", Some(&json!("3 August 2014"))));
        assert!(!matches("2014-08-03", Some(&json!("2014-08-04"))));
        // Dates without separators, and in brackets.
        assert!(matches("20180304", Some(&json!("2018-03-04"))));
        assert!(matches("25032018", Some(&json!("2018-03-25"))));
        assert!(matches("2018-03-25", Some(&json!("25032018"))));
        assert!(!matches("20180304", Some(&json!("2018-04-03"))));
        assert!(!matches("20180304", Some(&json!(20180305))));
        assert!(matches("(06/12/2016)", Some(&json!("2016-12-06"))));
        assert!(!matches("4.11", None));
        assert!(!matches("4.11", Some(&Value::Null)));
    }
}
