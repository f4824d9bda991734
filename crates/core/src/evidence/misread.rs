//! Values as OCR misreads them, read back: an amount split at its decimal
//! mark, and a date with a letter printed for a digit or a month's name
//! one letter off. Only what the misreading leaves unambiguous is read.

use crate::normalise::MONTHS;

/// An amount OCR split at its decimal mark: the mark and a space before
/// its two decimals (`51. 00`), or, on a page OCR read, the mark lost too
/// (`92 80`, where a space before three digits groups thousands instead).
/// `words` are as printed, with their marks; a currency may come first
/// (`RM 49, 40`).
pub(super) fn split_at_decimal_mark(words: &[&str], ocr: bool) -> Option<f64> {
    let has_digit = |w: &&str| w.bytes().any(|b| b.is_ascii_digit());
    let at = words.iter().position(has_digit)?;
    let [units, decimals] = &words[at..] else {
        return None;
    };
    if decimals.len() != 2 || !decimals.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let units = units.trim_start_matches(|c: char| !c.is_ascii_digit() && c != '-');
    let (digits, marked) = match units.strip_suffix(['.', ',']) {
        Some(digits) => (digits, true),
        None => (units, false),
    };
    let number = digits.strip_prefix('-').unwrap_or(digits);
    let is_number = (1..=6).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit());
    (is_number && (marked || ocr))
        .then(|| format!("{digits}.{decimals}").parse().ok())
        .flatten()
}

/// A numeric date OCR misread, as it was printed: a letter it reads for a
/// digit (`O7/01/18`, `D2/O2/17`) or a month's name with one letter wrong
/// (`26/Fen/2017`), after a label glued to it (`Date:D2/02/17`). `None`
/// when nothing was misread or the word is no date.
pub(super) fn misread_date(word: &str) -> Option<String> {
    let word = word.rsplit(':').next().unwrap_or(word);
    let separator = ['/', '.', '-']
        .into_iter()
        .find(|s| word.matches(*s).count() == 2)?;
    let parts: Vec<&str> = word.split(separator).collect();
    let mut repaired = Vec::with_capacity(3);
    let mut changed = false;
    for (at, part) in parts.iter().enumerate() {
        let read = if at == 1 && part.len() >= 3 && part.chars().all(char::is_alphabetic) {
            month_one_letter_off(part)
        } else {
            digits_misread(part)
        };
        let read = read?;
        changed |= read != *part;
        repaired.push(read);
    }
    // Two of the three groups must be printed as digits: `Oa/Jan/e0t7` is
    // no date.
    let digit_groups = parts
        .iter()
        .filter(|p| p.bytes().filter(u8::is_ascii_digit).count() >= p.len().max(2) - 1)
        .count();
    (changed && digit_groups >= 2).then(|| repaired.join(&separator.to_string()))
}

/// A group of a date's digits with the letters OCR reads for digits read
/// back (`O` for 0, `l` for 1, `S` for 5, `B` for 8), when at least one
/// is a digit and one group is at most four long.
fn digits_misread(part: &str) -> Option<String> {
    if part.is_empty() || part.len() > 4 || !part.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    part.chars()
        .map(|c| match c {
            '0'..='9' => Some(c),
            'O' | 'o' | 'D' | 'Q' => Some('0'),
            'I' | 'l' | '|' | 'i' => Some('1'),
            'S' | 's' => Some('5'),
            'B' => Some('8'),
            'Z' | 'z' => Some('2'),
            _ => None,
        })
        .collect()
}

/// The month whose name `word` is with one letter changed, when exactly
/// one month's is (`Fen` is February; `Mat` is March or May, so none).
fn month_one_letter_off(word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    if MONTHS.iter().any(|(name, _)| *name == lower) {
        return Some(word.to_owned());
    }
    let mut near = MONTHS.iter().filter(|(name, _)| {
        name.chars().count() == lower.chars().count()
            && name
                .chars()
                .zip(lower.chars())
                .filter(|(a, b)| a != b)
                .count()
                == 1
    });
    let (name, month) = near.next()?;
    near.all(|(_, m)| m == month).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_amount_split_at_its_mark_is_read_whole() {
        assert_eq!(split_at_decimal_mark(&["51.", "00"], false), Some(51.0));
        assert_eq!(
            split_at_decimal_mark(&["RM", "49,", "40"], false),
            Some(49.4)
        );
        assert_eq!(split_at_decimal_mark(&["“92", "80"], true), Some(92.8));
        assert_eq!(split_at_decimal_mark(&["92", "80"], false), None);
        assert_eq!(split_at_decimal_mark(&["92", "800"], true), None);
        assert_eq!(split_at_decimal_mark(&["12.5", "00"], true), None);
    }

    #[test]
    fn a_date_ocr_misread_is_read_as_printed() {
        assert_eq!(misread_date("O7/01/18").as_deref(), Some("07/01/18"));
        assert_eq!(misread_date("Date:D2/O2/17").as_deref(), Some("02/02/17"));
        assert_eq!(misread_date("26/Fen/2017").as_deref(), Some("26/feb/2017"));
        // Nothing misread, two months as near, or too little a date.
        assert_eq!(misread_date("07/01/18"), None);
        assert_eq!(misread_date("27/Mat/2018"), None);
        assert_eq!(misread_date("Oa/Jan/e0t7"), None);
        assert_eq!(misread_date("SO/OS/OO"), None);
        assert_eq!(misread_date("INV-2018-0042"), None);
    }
}
