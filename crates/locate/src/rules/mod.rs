//! The locator's scoring rules, one module per concept, each rule a named
//! item: its doc's first line says what it does, a `Measured:` line the
//! set it was measured on (from `docs/BENCHMARKS.md`'s `LOCATOR_VERSION`
//! sections, or "not measured"), and a `Test:` line the unit test that
//! fails without it. `docs/LOCATOR_RULES.md` lists them
//! (`scripts/locator-rules.py` writes it from these modules, and
//! `scripts/test.sh` fails when the checked-in file differs).
//!
//! - `shared` what applies to every field: a value at several places, an
//!   amount with cents, when a field is sure, a label word printed split
//!   in two
//! - `totals` the total's amount (rounding lines, a subtotal or a payment
//!   for a missing label, a tax is no total)
//! - `tax` tax amounts by arithmetic (a rate of another amount, the total
//!   less the net)
//! - `net` a `Net Total` label read as the total where it is paid
//! - `dates` the dates proposed, an issue date after the number (or
//!   linked to it by a word of "dated"), a due date only with its label
//!   or payment terms
//! - `identifiers` numbers and ids (an IBAN in groups, a VAT number's
//!   shape, whose tax id it is)
//! - `currency` a currency as printed, on the total's line, the home
//!   country's
//! - `parties` the seller's and buyer's names (the buyer is not the
//!   seller, a name runs on to its legal form on the next line)
//! - `forms` the parties' names on a form (a heading's own column, a
//!   heading naming two roles, a name box's captions, a name cut short)
//! - `payment` a receipt's payment as a check on its total
//!
//! `propose.rs` and `lib.rs` apply them in their order.

use crate::fields::FieldSpec;
use crate::labels::FoldedPages;
use crate::pages::SearchPage;

pub(crate) mod currency;
pub(crate) mod dates;
pub(crate) mod forms;
pub(crate) mod identifiers;
pub(crate) mod net;
pub(crate) mod parties;
pub(crate) mod payment;
pub(crate) mod shared;
pub(crate) mod tax;
pub(crate) mod totals;

/// An amount of a page as the amount rules see it, with what they ask of
/// it found once.
pub(crate) struct AmountAt<'a> {
    pub spec: &'a FieldSpec,
    pub pages: &'a [SearchPage],
    pub folded: &'a FoldedPages<'a>,
    /// The page's amounts by value, for the tax's arithmetic.
    pub by_value: &'a tax::AmountsByValue,
    pub page: usize,
    pub line: usize,
    pub amount: f64,
    /// The field is a total.
    pub is_total: bool,
    /// On a rounding line or at most [`totals::ROUNDED_WITHIN`] lines
    /// below one (for a total only).
    pub below_rounding: bool,
    /// The amount's last word ends in a decimal mark and two digits.
    pub cents: bool,
    /// An amount with cents follows it on its line.
    pub cents_after: bool,
}

/// A rule that adjusts an amount's score.
pub(crate) type AmountRule = fn(&AmountAt, i32) -> i32;
