//! The parties' names on a form: a name ends at a column's wide gap, a
//! heading over its own column (`SPRZEDAWCA … NABYWCA`) heads it, a
//! heading naming two roles (`DESTINATÁRIO / REMETENTE`) is one, the
//! captions of a name's box (`NOME / RAZÃO SOCIAL`) are none of it, and a
//! name cut short at its column's edge is its longer reading. `parties`
//! finds the names (and uses these); these rules say where on a form
//! they are.

use std::ops::Range;

use crate::fields::{FieldSpec, ValueKind};
use crate::labels::fold_word;
use crate::languages::lexicon;
use crate::lexicon::Concept;
use crate::pages::SearchPage;
use crate::proposal::Proposal;

/// A heading in a column of its own (`SPRZEDAWCA … NABYWCA`, `Seller … Buyer`) heads the words below it in that column, not the line's first.
///
/// Of `line`'s columns (its words parted at wide gaps), the one under
/// the heading's word `heading` (sharing some of its width), with the
/// columns after it; the whole line where the words have no boxes, none
/// is under it, or the heading starts its own line.
/// Measured: LOCATOR_VERSION 19, pt-pl tune (the two KSeF invoices' buyers,
/// with a sender line's postcode printed alone: buyer 9 → 11 of 11);
/// none changed on the other sets
/// Test: a_heading_in_the_right_column_heads_the_name_below_it
pub(super) fn in_the_headings_column(
    page: &SearchPage,
    heading: usize,
    line: Range<usize>,
) -> Range<usize> {
    let first_of_its_line = page.lines[page.words[heading].line].start == heading;
    let Some(at) = page.words[heading].bbox.filter(|_| !first_of_its_line) else {
        return line;
    };
    let mut start = line.start;
    while start < line.end {
        let column = before_wide_gap(page, start..line.end);
        let boxes = page.words[column.clone()].iter().filter_map(|w| w.bbox);
        let (left, right) = boxes.fold((f32::MAX, f32::MIN), |(l, r), b| {
            (l.min(b.x), r.max(b.x + b.width))
        });
        if left < at.x + at.width && at.x < right {
            return column.start..line.end;
        }
        start = column.end;
    }
    line
}

/// A heading naming two roles (`DESTINATÁRIO / REMETENTE`, `Bill to / Ship to`) is a heading: the word after the slash is no name.
///
/// Whether the words from `at` on a label's line start with a slash.
/// Measured: LOCATOR_VERSION 19, pt-pl tune's DANFEs (with a form's name
/// captions: buyer 0 → 2 of 9); none changed on the other sets
/// Test: a_forms_name_box_under_the_buyers_heading_is_the_buyers_name
pub(super) fn names_another_role(page: &SearchPage, at: usize) -> bool {
    page.words.get(at).is_some_and(|w| w.text.starts_with('/'))
}

/// A form's captions before a name (`Name:`, `NOME / RAZÃO SOCIAL`) are no part of it: a line of captions alone is passed over.
///
/// The first word of `words` past the name captions that start them
/// (each a phrase of the lexicon's `name_captions`, the marks between
/// them passed over too).
/// Measured: LOCATOR_VERSION 10 (`Name:` alone), LOCATOR_VERSION 19 every
/// language's captions, pt-pl tune's DANFEs (with a heading naming two
/// roles: buyer 0 → 2 of 9); none changed on the other sets
/// Test: a_forms_name_box_under_the_buyers_heading_is_the_buyers_name
pub(super) fn past_name_captions(folded: &[&str], words: Range<usize>) -> usize {
    let mut at = words.start;
    loop {
        while at < words.end && folded[at].is_empty() {
            at += 1;
        }
        let caption = lexicon().name_captions.iter().find_map(|caption| {
            let n = caption.split(' ').count();
            let here = folded.get(at..(at + n).min(words.end))?;
            (here.len() == n && here.iter().zip(caption.split(' ')).all(|(w, c)| *w == c))
                .then_some(n)
        });
        match caption {
            Some(n) => at += n,
            None => return at,
        }
    }
}

/// A name cut short at its column's edge (`NF-E EMITIDA EM`) is the longer reading of it found elsewhere on the page, where one begins with all its words.
///
/// Where a party's best name, of two words or more and not ending in a
/// legal form (a name that does is whole), begins another of its
/// candidates (the same words, then more), that candidate takes the best
/// one's score and place in the ranking, and the short one goes.
/// Applied to a party field's ranked values.
/// Measured: LOCATOR_VERSION 19, pt-pl tune's DANFEs (buyer 2 → 9 of 9: a receipt
/// stub's recipient cut at the stub's edge, whole in the buyer's box;
/// held out 2 → 7 of 9); none changed on the other sets
/// Test: a_name_cut_at_its_columns_edge_is_its_longer_reading
pub(crate) fn name_cut_short_is_its_longer_reading(
    spec: &FieldSpec,
    mut ranked: Vec<Proposal>,
) -> Vec<Proposal> {
    let is_party = matches!(spec.concept, Some(Concept::Issuer | Concept::Buyer));
    if spec.kind != ValueKind::Text || !is_party {
        return ranked;
    }
    let Some(short) = ranked.first().and_then(|p| p.value.as_str()) else {
        return ranked;
    };
    // A name that ends in its legal form is whole (`Holzwerk Süd GmbH`).
    let ends_whole = short
        .split_whitespace()
        .next_back()
        .is_some_and(|w| is_legal_form(&fold_word(w)));
    if short.split_whitespace().count() < 2 || ends_whole {
        return ranked;
    }
    let prefix = format!("{short} ");
    let longer = ranked
        .iter()
        .skip(1)
        .position(|p| p.value.as_str().is_some_and(|v| v.starts_with(&prefix)));
    if let Some(at) = longer {
        let mut whole = ranked.remove(at + 1);
        whole.score = whole.score.max(ranked[0].score);
        ranked[0] = whole;
    }
    ranked
}

/// A name ends at a wide gap: the words past it are another column's.
///
/// `words` up to the first wide gap between two of them (a twentieth of
/// the page's width): a name printed beside another column (`Theodor Est`
/// and the seller's `fon (555) 23 78`) ends there.
/// Measured: LOCATOR_VERSION 10, the parties' names (pages' starter schema 243 → 285:
/// seller 9 → 28, buyer 0 → 23; receipts' sellers, tuning 89 → 146,
/// held-out 68 → 97)
/// Test: numbers_headings_and_sentences_are_no_ones_name
pub(super) fn before_wide_gap(page: &SearchPage, words: Range<usize>) -> Range<usize> {
    const WIDE_GAP: f32 = 0.05;
    let end = (words.start + 1..words.end)
        .find(|&w| {
            let (Some(before), Some(after)) = (&page.words[w - 1].bbox, &page.words[w].bbox) else {
                return false;
            };
            after.x - (before.x + before.width) > WIDE_GAP
        })
        .unwrap_or(words.end);
    words.start..end
}

/// Whether a folded word is a legal form (`gmbh`, `sarl`, `ltda`).
pub(super) fn is_legal_form(folded: &str) -> bool {
    lexicon().legal_forms.contains(&folded)
}
