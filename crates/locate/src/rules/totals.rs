//! The total's rules: a total of nothing, a scan's label above a bare
//! number, the rounded total below a rounding line, a tax that is no
//! total, and the subtotal where the page labels no total.

use super::AmountAt;
use super::tax::is_tax_of_another;
use crate::fields::FieldSpec;
use crate::labels::{ABOVE, SAME_LINE};
use crate::lexicon::Concept;
use crate::proposal::{Amount, Proposal, amount_value, same_value};

/// What a labelled total gains for being on a rounding line (`Total
/// Rounded`) or at most [`ROUNDED_WITHIN`] lines below one.
const ROUNDED: i32 = 40;
/// How many lines below a rounding line a total is the rounded one.
pub(crate) const ROUNDED_WITHIN: usize = 3;
/// The least a subtotal scores as the total of a page with no total's
/// label: above any unlabelled number, below any labelled one.
const SUBTOTAL_FOR_TOTAL: i32 = 30;

/// A total of nothing is no total: a zero is a line of nothing (`Discount 0.00`).
///
/// Measured: not measured
/// Test: a_total_of_nothing_is_no_total
pub(crate) fn zero_is_no_total(spec: &FieldSpec, amount: f64) -> bool {
    spec.concept == Some(Concept::Total) && amount == 0.0
}

/// On a scan, a label above governs no bare whole number for a total: a total is printed with cents.
///
/// `2` of a line `Closed: 2 11-03-2018` under `TOTAL:` whose amount OCR lost.
/// Measured: LOCATOR_VERSION 13, tuning receipts' totals (326 of 395, +1 / −0)
/// Test: on_a_scan_a_label_above_governs_no_bare_whole_number
pub(crate) fn scan_label_above_governs_no_bare_whole_number(at: &AmountAt, s: i32) -> i32 {
    if at.is_total && at.pages[at.page].ocr && (ABOVE..SAME_LINE).contains(&s) && !at.cents {
        0
    } else {
        s
    }
}

/// A labelled total on or just below a rounding line gains 40: it is the rounded one, what is paid.
///
/// The total above it is before rounding.
/// Measured: LOCATOR_VERSION 5, tuning and held-out receipts (with that
/// version's other rules); LOCATOR_VERSION 8, "a total below a rounding
/// line beats a longer total label above it" (tuning +1, held-out +1, fresh +2)
/// Test: the_total_below_a_rounding_line_beats_a_longer_label_above_it
pub(crate) fn total_below_rounding_line_gains(at: &AmountAt, s: i32) -> i32 {
    if s >= ABOVE && at.below_rounding {
        s + ROUNDED
    } else {
        s
    }
}

/// A tax is no total: a labelled amount that is another's tax at a rate the page prints scores as an unlabelled one.
///
/// `(Inclusive) GST 6% 33,57` under `Total 593,10`, whatever label is near it.
/// Measured: LOCATOR_VERSION 11, with that version's first step of totals
/// rules (tuning receipts +8, held-out +2, pages starter schema +4)
/// Test: the_tax_included_in_an_amount_is_never_the_total
pub(crate) fn tax_of_another_is_no_total(at: &AmountAt, s: i32) -> i32 {
    if s >= ABOVE && at.is_total && is_tax_of_another(at.by_value, at.page, at.amount) {
        1
    } else {
        s
    }
}

/// With no total's label, the subtotal (plus the labelled tax where the page prints that sum) is the total, first but never sure.
///
/// OCR lost the total's line, or the receipt prints none: `Sub Total
/// 68.87`, `GST 6% 4.13`, and `73.00` elsewhere. The subtotal is the total
/// where no tax or charge is added: a likelier answer than any unlabelled
/// number. `labelled` is the best value another concept's labels give.
/// Measured: LOCATOR_VERSION 8, "a page with no total's label: its subtotal
/// first" (tuning 0, held-out +3, fresh +5 / −1); the subtotal plus the tax
/// at LOCATOR_VERSION 11, with that version's first step of totals rules
/// Test: a_page_with_no_total_label_gives_its_subtotal_first_but_never_sure
pub(crate) fn subtotal_first_without_a_total_label(
    spec: &FieldSpec,
    ranked: Vec<Proposal>,
    labelled: &dyn Fn(Concept) -> Option<Proposal>,
    amounts: &[Amount],
) -> Vec<Proposal> {
    if spec.concept != Some(Concept::Total) || ranked.first().is_some_and(|p| p.score >= ABOVE) {
        return ranked;
    }
    let Some(mut subtotal) = labelled(Concept::Net) else {
        return ranked;
    };
    let taxed = labelled(Concept::Tax)
        .and_then(|tax| Some(subtotal.amount? + tax.amount?))
        .filter(|sum| *sum > 0.0)
        .and_then(|sum| {
            amounts
                .iter()
                .find(|(_, _, amount)| (amount - sum).abs() < 0.005)
        });
    if let Some((page, words, amount)) = taxed {
        subtotal = Proposal {
            value: amount_value(spec, *amount),
            page: *page,
            words: words.clone(),
            score: 0,
            amount: Some(*amount),
        };
    }
    let best = ranked.first().map_or(0, |p| p.score);
    subtotal.score = best.max(SUBTOTAL_FOR_TOTAL) + 1;
    let mut out = vec![subtotal.clone()];
    out.extend(
        ranked
            .into_iter()
            .filter(|p| !same_value(&p.value, &subtotal.value)),
    );
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::locate_fields;
    use crate::tests::text_document;

    #[test]
    fn a_total_of_nothing_is_no_total() {
        let schema = json!({"type": "object", "properties": {
            "total": {"type": "number", "description": "The total amount due"}
        }});
        let located = locate_fields(&text_document("Total 0.00\nThank you 5.00"), &schema);
        assert_eq!(located[0].best(), Some(&json!(5.0)));
    }
}
