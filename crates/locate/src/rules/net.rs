//! The net's rules. The net's labels are the language files' (`Net
//! total`, `excl. USt.`); what a net label means where the page rounds
//! what is paid is a rule.

use super::AmountAt;
use crate::labels::{FoldedPages, SAME_LINE};
use crate::pages::SearchPage;

/// A `Net Total` on or just below the rounding line is the total, labelled as on its own line.
///
/// Rounding is applied to what is paid; a net before tax comes before the
/// tax, far above any rounding. (A net as the total less the tax was
/// tried at LOCATOR_VERSION 10: it changed no value and was not kept.)
/// Measured: LOCATOR_VERSION 8, with "a value between two labels ends the
/// first's reach" (tuning receipts +2, held-out 0, fresh +3)
/// Test: a_net_total_below_the_rounding_is_paid_and_a_net_total_above_the_tax_is_not
pub(crate) fn net_total_at_rounding_is_the_total(at: &AmountAt, s: i32) -> i32 {
    if s < 0 && at.below_rounding && says_net_total(at.folded, at.pages, at.page, at.line) {
        SAME_LINE
    } else {
        s
    }
}

/// Whether line `line` of page `page` says `Net Total`.
fn says_net_total(folded: &FoldedPages, pages: &[SearchPage], page: usize, line: usize) -> bool {
    let words = &folded.0[page][pages[page].lines[line].clone()];
    words.windows(2).any(|w| w[0] == "net" && w[1] == "total")
}
