//! The identifiers' rules: what a number or an id is (a word with a
//! digit that is no amount or date, a series letter and its number, an
//! IBAN printed in groups), and how each is scored beside its label (a
//! short number only right after it, a bracketed code lower, a VAT
//! number's shape, whose tax id it is).

use crate::fields::FieldSpec;
use crate::labels::{SAME_LINE, bracketed, fold_word};
use crate::lexicon::{self, Concept};
use crate::normalise::normalize_date;
use crate::pages::SearchPage;
use crate::shapes::{has_iban_shape, is_vat_number};

use super::currency::currency;

/// What an identifier in brackets loses.
const BRACKETED: i32 = 10;
/// What a tax id of a VAT number's shape gains over another number.
const VAT_SHAPED: i32 = 10;
/// What a VAT number no label governs scores: a guess below any labelled
/// tax id.
const UNLABELLED_VAT: i32 = 30;
/// How far past its label's own-line score a short number must be: right
/// after the label.
const SHORT_NUMBER_AFTER_LABEL: i32 = 8;

/// A word of a VAT number's shape no label governs is a tax id candidate, scoring 30: below any labelled one.
///
/// `TVA : FR11999999998`, where `TVA` labels a tax.
/// Measured: LOCATOR_VERSION 10, pages' payment fields, with the buyer's
/// VAT number answering only a buyer's field (VAT id 28 → 34 of 36, 6 won,
/// none lost)
/// Test: the_customers_vat_number_is_the_buyers_and_a_vat_numbers_shape_finds_the_sellers
pub(crate) fn unlabelled_vat_number_is_a_tax_id(spec: &FieldSpec, word: &str, s: i32) -> i32 {
    if s == 0
        && spec.concept == Some(Concept::TaxId)
        && identifier(word).is_some_and(|id| is_vat_number(&id))
    {
        UNLABELLED_VAT
    } else {
        s
    }
}

/// A number of one or two digits is proposed only right after its label on its line (`Rechnung Nr. 42`).
///
/// Measured: LOCATOR_VERSION 9, with that version's second step (corpus
/// +6 / −1, pages +7, tuning receipts +10 / −2, held-out +6 / −2)
/// Test: a_short_number_right_after_its_label_and_no_register_or_bracketed_code
pub(crate) fn short_number_only_right_after_its_label(short: bool, s: i32) -> bool {
    !short || s >= SAME_LINE + SHORT_NUMBER_AFTER_LABEL
}

/// A code in brackets beside a label loses 10: it is a kind or a type (`Gutschrift (389) Nr. 47110818`).
///
/// Rarely the document's own number.
/// Measured: LOCATOR_VERSION 9, with that version's second step (corpus
/// +6 / −1, pages +7, tuning receipts +10 / −2, held-out +6 / −2)
/// Test: a_short_number_right_after_its_label_and_no_register_or_bracketed_code
pub(crate) fn bracketed_code_loses(word: &str, s: i32) -> i32 {
    if bracketed(word) { s - BRACKETED } else { s }
}

/// A tax id of a VAT number's shape gains 10 over a national tax number printed beside it (`Steuernummer 201/113/40209`).
///
/// Measured: LOCATOR_VERSION 10, pages' payment fields, with that field
/// set's other rules (VAT id 16 → 28 of 36)
/// Test: a_vat_id_of_its_countrys_shape_wins_over_a_national_tax_number
pub(crate) fn vat_shaped_tax_id_gains(spec: &FieldSpec, id: &str, s: i32) -> i32 {
    if spec.concept == Some(Concept::TaxId) && is_vat_number(id) {
        s + VAT_SHAPED
    } else {
        s
    }
}

/// The buyer's tax id (`Customer VAT Number`, `N° TVA client`) answers only a buyer's field, and the seller's none.
///
/// Whose id it is: the party its line names before it, else
/// [`party_named_above`]; the seller's where no line names one.
/// `asks_buyer` whether the field asks the buyer's id.
/// Measured: LOCATOR_VERSION 10, pages' payment fields, with the unlabelled
/// VAT number (VAT id 28 → 34 of 36, 6 won, none lost)
/// Test: the_customers_vat_number_is_the_buyers_and_a_vat_numbers_shape_finds_the_sellers
pub(crate) fn tax_id_answers_its_own_party(
    spec: &FieldSpec,
    page: &SearchPage,
    folded: &[&str],
    w: usize,
    asks_buyer: bool,
) -> bool {
    if spec.concept != Some(Concept::TaxId) {
        return true;
    }
    let line = page.words[w].line;
    let party = party_named(&folded[page.lines[line].start..w])
        .or_else(|| party_named_above(page, folded, w));
    party.unwrap_or(Party::Seller)
        == if asks_buyer {
            Party::Buyer
        } else {
            Party::Seller
        }
}

/// A tax id whose line names no party is the party's the nearest of the two lines above names (a buyer's heading over its `CNPJ / CPF` box).
///
/// `DESTINATÁRIO / REMETENTE` two lines above a box's number; a
/// `Destinatário:` line whose address runs on to the number. Where a line
/// above names both parties (`SPRZEDAWCA … NABYWCA`, a column each), the
/// id is the party's whose word starts last at or left of the id's; with
/// no boxes to tell the columns, it is no one's.
/// Measured: LOCATOR_VERSION 19, pt-pl tune (seller's tax id 4 → 10 of 12,
/// with the columns; held out 0 → 9 of 9); none changed on the other sets
/// Test: a_tax_id_under_the_buyers_heading_is_the_buyers
fn party_named_above(page: &SearchPage, folded: &[&str], w: usize) -> Option<Party> {
    let line = page.words[w].line;
    for above in (line.saturating_sub(PARTY_LINES_ABOVE)..line).rev() {
        let named: Vec<(usize, Party)> = page.lines[above]
            .clone()
            .filter_map(|a| word_party(folded[a]).map(|party| (a, party)))
            .collect();
        let Some(&(_, first)) = named.first() else {
            continue;
        };
        if named.iter().all(|(_, party)| *party == first) {
            return Some(first);
        }
        // Both parties, a column each: the id's column's, told by boxes.
        let id = page.words[w].bbox?;
        let column = named.iter().rev().find(|(a, _)| {
            page.words[*a]
                .bbox
                .is_some_and(|b| b.x <= id.x + COLUMN_SLACK)
        });
        return column.map(|(_, party)| *party);
    }
    None
}

/// How far right of a tax id its column's party word may start, as a
/// fraction of the page's width.
const COLUMN_SLACK: f32 = 0.01;

/// How many lines above a tax id the party it belongs to is looked for.
const PARTY_LINES_ABOVE: usize = 2;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Party {
    Seller,
    Buyer,
}

/// The party `words` (folded) name by one of its one-word labels, the
/// last named where both are.
fn party_named(words: &[&str]) -> Option<Party> {
    words.iter().rev().find_map(|word| word_party(word))
}

/// The party a folded word is a one-word label of.
fn word_party(word: &str) -> Option<Party> {
    if says_buyer(&[word]) {
        Some(Party::Buyer)
    } else {
        let issuer = lexicon::labels(Concept::Issuer);
        issuer.contains(&word).then_some(Party::Seller)
    }
}

/// An IBAN has its shape: the groups of one printed with spaces are no IBAN on their own.
///
/// Measured: LOCATOR_VERSION 10, pages' payment fields (IBAN 9 → 19 of 23,
/// with the IBAN in groups)
/// Test: an_iban_printed_in_groups_is_given_without_spaces_and_never_one_group
pub(crate) fn iban_has_its_shape(spec: &FieldSpec, id: &str) -> bool {
    spec.concept != Some(Concept::Iban) || has_iban_shape(id)
}

/// Whether `words` (folded) name the buyer: one of the buyer's one-word
/// labels (`customer`, `client`, `käufer`).
pub(crate) fn says_buyer(words: &[impl AsRef<str>]) -> bool {
    let buyer = lexicon::labels(Concept::Buyer);
    words
        .iter()
        .map(AsRef::as_ref)
        .any(|w| buyer.contains(&w) || w == "purchaser")
}

/// A field's own words, as labels are folded.
pub(crate) fn spec_words(spec: &FieldSpec) -> Vec<String> {
    spec.own_label.split_whitespace().map(fold_word).collect()
}

/// An identifier printed after its series' letter is the letter and the number (`F 1234K20/1234/12`).
///
/// A lone capital, then an identifier on the same line; with the word
/// after it.
/// Measured: LOCATOR_VERSION 9, with `faktura` and `payable` alone no label
/// (corpus +2, one the step before lost)
/// Test: a_series_letter_is_part_of_the_number_and_faktura_labels_it
pub(crate) fn series_identifier(page: &SearchPage, w: usize) -> Option<(String, usize)> {
    let letter = &page.words[w];
    let next = page.words.get(w + 1).filter(|n| n.line == letter.line)?;
    let series = letter.text.len() == 1 && letter.text.bytes().all(|b| b.is_ascii_uppercase());
    let id = identifier(&next.text).filter(|_| series)?;
    Some((format!("{} {id}", letter.text), w + 2))
}

/// A word that is a number of one or two digits (marks around it aside).
pub(crate) fn short_number(word: &str) -> Option<String> {
    let digits = word.trim_matches([':', ';', ',', '.', '(', ')', '#']);
    (!digits.is_empty() && digits.len() <= 2 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.to_owned())
}

/// An IBAN printed in groups (`DE89 3704 0044 0532 0130 00`) is one, without its spaces, as an e-invoice gives it.
///
/// It starts at word `w` and runs on over the words of its line: two
/// letters and two check digits first, then groups of at most four
/// letters or digits, 15 to 34 in all; with the word after its last.
/// Measured: LOCATOR_VERSION 10, pages' payment fields (IBAN 9 → 19 of 23,
/// with an IBAN's shape)
/// Test: an_iban_printed_in_groups_is_given_without_spaces_and_never_one_group
pub(crate) fn grouped_iban(page: &SearchPage, w: usize) -> Option<(String, usize)> {
    let first = page.words.get(w)?;
    let head = first.text.as_bytes();
    let starts = head.len() == 4
        && head[..2].iter().all(u8::is_ascii_uppercase)
        && head[2..].iter().all(u8::is_ascii_digit);
    if !starts {
        return None;
    }
    let (mut end, mut length) = (w + 1, 4);
    while let Some(next) = page.words.get(end) {
        let group = next.text.trim_end_matches([',', '.', ';']);
        let fits = next.line == first.line
            && (1..=4).contains(&group.len())
            && group.chars().all(|c| c.is_ascii_alphanumeric())
            && length + group.len() <= 34;
        if !fits {
            break;
        }
        length += group.len();
        end += 1;
        if group.len() < 4 {
            break;
        }
    }
    (length >= 15).then(|| {
        let groups = page.words[w..end].iter();
        let iban = groups
            .flat_map(|word| word.text.chars().filter(char::is_ascii_alphanumeric))
            .collect();
        (iban, end)
    })
}

/// A word as an identifier: with a digit and at least three letters or
/// digits, not a date, an amount with cents or a percentage; the marks
/// around it dropped (a leading `#` kept: it is printed as part of some).
pub(crate) fn identifier(word: &str) -> Option<String> {
    // What is left of the word below has a digit: most words have none.
    if !word.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let trimmed = word
        .trim_start_matches([':', '(', '[', '"', '\''])
        .trim_end_matches([':', ';', ',', '.', ')', ']', '"', '\'']);
    // `N°562044387`, `Nr.123`: the label glued to the number.
    let trimmed = ["n°", "nº", "no.", "nr.", "no:", "nr:", "n.", "no", "nr"]
        .iter()
        .find_map(|prefix| {
            let head = trimmed.get(..prefix.len())?;
            let rest = &trimmed[prefix.len()..];
            (head.eq_ignore_ascii_case(prefix) && rest.starts_with(|c: char| c.is_ascii_digit()))
                .then_some(rest)
        })
        .unwrap_or(trimmed);
    let alnum = trimmed.chars().filter(|c| c.is_alphanumeric()).count();
    if alnum < 3 || !trimmed.chars().any(|c| c.is_ascii_digit()) || trimmed.contains('%') {
        return None;
    }
    if normalize_date(trimmed).is_some() {
        return None;
    }
    // An amount with its currency glued on (`$4.11`, `12.00EUR`) is
    // money too, not a number of something.
    let amount = if currency(trimmed).is_some() {
        trimmed.trim_matches(|c: char| !c.is_ascii_digit())
    } else {
        trimmed
    };
    let b = amount.as_bytes();
    let money = b.len() >= 4
        && matches!(b[b.len() - 3], b'.' | b',')
        && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
        && amount[..b.len() - 3]
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ','));
    (!money).then(|| trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_words_with_digits_that_are_not_money_or_dates() {
        assert_eq!(identifier("42183017").as_deref(), Some("42183017"));
        assert_eq!(
            identifier("#BLR_WFLD20151000982590").as_deref(),
            Some("#BLR_WFLD20151000982590")
        );
        assert_eq!(
            identifier("INV/2023/03/0008:").as_deref(),
            Some("INV/2023/03/0008")
        );
        assert_eq!(identifier("4.11"), None);
        assert_eq!(identifier("$4.11"), None);
        assert_eq!(identifier("€4.904,94"), None);
        assert_eq!(identifier("12.00EUR"), None);
        // A number that only looks like an amount, with no currency.
        assert_eq!(identifier("RE-2017.05").as_deref(), Some("RE-2017.05"));
        assert_eq!(identifier("1.234,56"), None);
        assert_eq!(identifier("03.08.2014"), None);
        assert_eq!(identifier("19%"), None);
        assert_eq!(identifier("12"), None);
    }
}
