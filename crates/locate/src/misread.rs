//! Values as OCR misreads them, read back: an amount split at its decimal
//! mark or with a 5 read as a letter (`§.30`), and a date with a letter
//! printed for a digit, a month's name one letter off, a label glued on,
//! or a year one digit off, or glued to the time after it; and which
//! digits OCR reads for others, for
//! the checks that read a total back. Only what the misreading leaves
//! unambiguous is read.

use crate::normalise::{months, normalize_amount};

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

/// An amount OCR read with its decimal mark doubled (`RM7..00`): the
/// amount with one mark.
pub(super) fn doubled_decimal_mark(word: &str) -> Option<f64> {
    let mark = ["..", ",,"]
        .into_iter()
        .find(|m| word.matches(m).count() == 1)?;
    let (units, decimals) = word.split_once(mark)?;
    let cents = decimals.trim_end_matches(|c: char| !c.is_ascii_digit());
    let two = cents.len() == 2 && cents.bytes().all(|b| b.is_ascii_digit());
    let ends_in_digit = units.ends_with(|c: char| c.is_ascii_digit());
    (two && ends_in_digit)
        .then(|| normalize_amount(&format!("{units}.{cents}")))
        .flatten()
}

/// Whether OCR reads the digit `printed` as `read` often enough to read
/// it back where a check says so: a till's 0 as 6, 8 or 9, a 5 as 6
/// (on 395 receipt photos: `14.19` for `14.10`, `112.46` for `112.45`).
pub(super) fn is_digit_misread(printed: u8, read: u8) -> bool {
    matches!((printed, read), (0, 6 | 8 | 9) | (5, 6))
}

/// An amount of one unit digit that OCR read as a letter like it: a `5`
/// read as `§` or `S` before the decimal mark (`§.30`, `S,90`), as a
/// till's print often is. Nothing else on a page starts a number so.
pub(super) fn five_read_as_letter(word: &str) -> Option<f64> {
    let rest = word.strip_prefix('§').or_else(|| word.strip_prefix('S'))?;
    let cents = rest.strip_prefix(['.', ','])?;
    let cents = cents.trim_end_matches([',', ';', ':']);
    (cents.len() == 2 && cents.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("5.{cents}").parse().ok())
        .flatten()
}

/// A numeric date with a four-digit year that OCR read glued to the time
/// after it, the space lost (`09/01/20198:01:11PM`, `25-12-201810:20`):
/// the date alone. `None` for any other word.
pub(super) fn date_glued_to_time(word: &str) -> Option<&str> {
    let bytes = word.as_bytes();
    let day_end = bytes.iter().position(|b| !b.is_ascii_digit())?;
    let separator = *bytes.get(day_end)?;
    if !(1..=2).contains(&day_end) || !b"./-".contains(&separator) {
        return None;
    }
    let month_len = bytes[day_end + 1..]
        .iter()
        .position(|b| !b.is_ascii_digit())?;
    let year_at = day_end + 1 + month_len + 1;
    if !(1..=2).contains(&month_len) || bytes.get(year_at - 1) != Some(&separator) {
        return None;
    }
    let year = word.get(year_at..year_at + 4)?;
    let time = &bytes[year_at + 4..];
    let hour_len = time.iter().position(|b| !b.is_ascii_digit())?;
    let glued_time = (1..=2).contains(&hour_len)
        && time.get(hour_len) == Some(&b':')
        && time
            .get(hour_len + 1..hour_len + 3)
            .is_some_and(|m| m.iter().all(u8::is_ascii_digit));
    (year.bytes().all(|b| b.is_ascii_digit())
        && (year.starts_with("19") || year.starts_with("20"))
        && glued_time)
        .then(|| &word[..year_at + 4])
}

/// A numeric date OCR misread, as it was printed: a letter it reads for a
/// digit (`O7/01/18`, `D2/O2/17`) or a month's name with one letter wrong
/// (`26/Fen/2017`), after a label glued to it (`Date:D2/02/17`). `None`
/// when nothing was misread or the word is no date.
pub(super) fn misread_date(word: &str) -> Option<String> {
    let (word, separator) = numeric_date_shape(word)?;
    // A date's label or a bracket glued before it (`Dater11/03/18`,
    // `[Sales]2018-01-05`), not a code's letters (`HD03-04-06`).
    let (word, glued) = match word.find(separator) {
        Some(end)
            if word[..end]
                .chars()
                .any(|c| !c.is_ascii_digit() && !is_read_for_digit(c)) =>
        {
            let head = &word[..end];
            let at = head.len() - head.trim_start_matches(|c: char| !c.is_ascii_digit()).len();
            let (label, rest) = word.split_at(at);
            let only_digits = rest[..rest.find(separator)?]
                .bytes()
                .all(|b| b.is_ascii_digit());
            let lower = label.to_lowercase();
            let a_dates = ["dat", "tarikh", "fecha"]
                .iter()
                .any(|l| lower.starts_with(l));
            if only_digits && (a_dates || label.ends_with([')', ']', '}'])) {
                (rest, true)
            } else {
                (word, false)
            }
        }
        _ => (word, false),
    };
    let parts: Vec<&str> = word.split(separator).collect();
    let mut repaired = Vec::with_capacity(3);
    let mut changed = glued;
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

/// A numeric date whose day or month OCR misread by one digit into no
/// date at all (`19/62/2018`, `92/02/2018`: a 0 read as 6, 8 or 9;
/// `42/13/2016`: a 1 read as 4 or 7), after a label glued on with a
/// colon: the one reading with that digit read back, when only one
/// reading is a date (either way round, or year first).
pub(super) fn misread_day_or_month(word: &str) -> Option<String> {
    let (word, separator) = numeric_date_shape(word)?;
    let groups: Vec<&str> = word.split(separator).collect();
    let all_digits = |g: &&str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if !groups.iter().all(all_digits) {
        return None;
    }
    let year_first = groups[0].len() == 4;
    let (year, day_and_month) = if year_first { (0, [1, 2]) } else { (2, [0, 1]) };
    if !matches!(groups[year].len(), 2 | 4) || day_and_month.iter().any(|&g| groups[g].len() > 2) {
        return None;
    }
    let is_date = |groups: &[String]| {
        let [Ok(a), Ok(b)] = day_and_month.map(|g| groups[g].parse::<u32>()) else {
            return false;
        };
        let (day, month) = (1..=31, 1..=12);
        if year_first {
            month.contains(&a) && day.contains(&b)
        } else {
            (day.contains(&a) && month.contains(&b)) || (month.contains(&a) && day.contains(&b))
        }
    };
    let printed: Vec<String> = groups.iter().map(|g| (*g).to_owned()).collect();
    if is_date(&printed) {
        return None;
    }
    let mut readings: Vec<String> = Vec::new();
    for g in day_and_month {
        for (at, digit) in groups[g].char_indices() {
            let meant = match digit {
                '6' | '8' | '9' => "0",
                '4' | '7' => "1",
                _ => continue,
            };
            let mut read = printed.clone();
            read[g].replace_range(at..at + 1, meant);
            let date = read.join(&separator.to_string());
            if is_date(&read) && !readings.contains(&date) {
                readings.push(date);
            }
        }
    }
    match &readings[..] {
        [only] => Some(only.clone()),
        _ => None,
    }
}

/// A word shaped as a numeric date, after a label glued on with a colon
/// (`Date:92/02/2018`): the date's part and its separator, the one of
/// `/`, `.` or `-` it holds exactly twice.
fn numeric_date_shape(word: &str) -> Option<(&str, char)> {
    let word = word.rsplit(':').next().unwrap_or(word);
    let separator = ['/', '.', '-']
        .into_iter()
        .find(|s| word.matches(*s).count() == 2)?;
    Some((word, separator))
}

/// Whether OCR prints `c` for a digit (see [`digits_misread`]).
fn is_read_for_digit(c: char) -> bool {
    "ODQoIl|iSsBZz".contains(c)
}

/// A date (`yyyy-mm-dd`) whose year OCR misread by one digit (`2078` for
/// 2018, `2618` too: a 1 read as 7 or 4, a 3 as 8, a 0 as 8, 6 or 9) into a year outside
/// `years`: the one reading inside them, when only one is.
pub(super) fn misread_year(date: &str, years: &std::ops::RangeInclusive<i32>) -> Option<String> {
    let year: i32 = date.get(..4)?.parse().ok()?;
    if years.contains(&year) {
        return None;
    }
    const CONFUSED: &[(u8, u8)] = &[
        (b'7', b'1'),
        (b'4', b'1'),
        (b'8', b'3'),
        (b'8', b'0'),
        (b'6', b'0'),
        (b'9', b'0'),
    ];
    let digits = date.as_bytes();
    let mut readings = Vec::new();
    for at in 1..4 {
        for &(read, meant) in CONFUSED {
            if digits[at] == read {
                let mut fixed = digits[..4].to_vec();
                fixed[at] = meant;
                let fixed: i32 = std::str::from_utf8(&fixed).ok()?.parse().ok()?;
                if years.contains(&fixed) && !readings.contains(&fixed) {
                    readings.push(fixed);
                }
            }
        }
    }
    match readings[..] {
        [only] => Some(format!("{only:04}{}", &date[4..])),
        _ => None,
    }
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
    if months().iter().any(|(name, _)| *name == lower) {
        return Some(word.to_owned());
    }
    let mut near = months().iter().filter(|(name, _)| {
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
    fn a_date_glued_to_a_time_is_cut_at_its_four_digit_year() {
        assert_eq!(
            date_glued_to_time("09/01/20198:01:11PM"),
            Some("09/01/2019")
        );
        assert_eq!(date_glued_to_time("25-12-201810:20"), Some("25-12-2018"));
        // A two-digit year could be either side of the join; a code or a
        // year with no time after it is no date glued to a time.
        assert_eq!(date_glued_to_time("18-11-1810:20"), None);
        assert_eq!(date_glued_to_time("09/01/2019"), None);
        assert_eq!(date_glued_to_time("09/01/201981"), None);
        assert_eq!(date_glued_to_time("09/01/30198:01"), None);
        assert_eq!(date_glued_to_time("123/01/20198:01"), None);
    }

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
    fn a_five_read_as_a_letter_before_the_decimal_mark_is_read_back() {
        assert_eq!(five_read_as_letter("§.30"), Some(5.3));
        assert_eq!(five_read_as_letter("S,90"), Some(5.9));
        assert_eq!(five_read_as_letter("§.30:"), Some(5.3));
        // Not a digit's place, or not cents after it.
        assert_eq!(five_read_as_letter("§5.30"), None);
        assert_eq!(five_read_as_letter("S.3"), None);
        assert_eq!(five_read_as_letter("SR.30"), None);
        assert_eq!(five_read_as_letter("$.30"), None);
    }

    #[test]
    fn a_doubled_decimal_mark_is_one() {
        assert_eq!(doubled_decimal_mark("RM7..00"), Some(7.0));
        assert_eq!(doubled_decimal_mark("12,,50"), Some(12.5));
        assert_eq!(doubled_decimal_mark("7.00"), None);
        assert_eq!(doubled_decimal_mark("Tel..123"), None);
        assert_eq!(doubled_decimal_mark("1..2..3"), None);
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
        // A label or a bracket glued on.
        assert_eq!(misread_date("Dater11/03/18").as_deref(), Some("11/03/18"));
        assert_eq!(
            misread_date("[Sales]2018-01-05").as_deref(),
            Some("2018-01-05")
        );
        // A product's code is no date.
        assert_eq!(misread_date("HD03-04-06"), None);
    }

    #[test]
    fn a_day_or_month_misread_by_one_digit_is_read_back_when_only_one_reading_is_a_date() {
        assert_eq!(
            misread_day_or_month("19/62/2018").as_deref(),
            Some("19/02/2018")
        );
        assert_eq!(
            misread_day_or_month("Date:92/02/2018").as_deref(),
            Some("02/02/2018")
        );
        assert_eq!(
            misread_day_or_month("2018-09-38").as_deref(),
            Some("2018-09-30")
        );
        assert_eq!(
            misread_day_or_month("05-82-18").as_deref(),
            Some("05-02-18")
        );
        assert_eq!(
            misread_day_or_month("42/13/2016").as_deref(),
            Some("12/13/2016")
        );
        // A date as printed, no 6, 8 or 9 to read back, or two readings.
        assert_eq!(misread_day_or_month("19/02/2018"), None);
        assert_eq!(misread_day_or_month("45/72/2018"), None);
        assert_eq!(misread_day_or_month("99/98/2018"), None);
        // Not a date's shape: a code, a phone number, letters.
        assert_eq!(misread_day_or_month("123-456-789"), None);
        assert_eq!(misread_day_or_month("INV-96-2018"), None);
        assert_eq!(misread_day_or_month("19/62/201"), None);
    }

    #[test]
    fn a_year_misread_by_one_digit_is_read_back_when_only_one_reading_fits() {
        let years = 1980..=2027;
        assert_eq!(
            misread_year("2078-03-18", &years).as_deref(),
            Some("2018-03-18")
        );
        assert_eq!(
            misread_year("2048-03-18", &years).as_deref(),
            Some("2018-03-18")
        );
        assert_eq!(
            misread_year("2088-03-18", &years).as_deref(),
            Some("2008-03-18")
        );
        // A plausible year is left, and one no reading brings in.
        assert_eq!(
            misread_year("2618-02-12", &years).as_deref(),
            Some("2018-02-12")
        );
        assert_eq!(misread_year("2018-03-18", &years), None);
        assert_eq!(misread_year("1974-03-18", &years), None);
    }
}
