//! What a field holds, as far as its labels go: the concepts the
//! locator knows. Its own file, below both the selectors that choose a
//! field's concept (`lexicon.rs`) and the language files' reader
//! (`languages.rs`), which each need it and need each other in one
//! direction only.

/// What a field holds, as far as its labels go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concept {
    /// The amount to pay: total, grand total, amount due.
    Total,
    /// The amount before tax.
    Net,
    /// The tax amount.
    Tax,
    /// The document's own number.
    DocumentNumber,
    /// The document's (issue) date.
    IssueDate,
    /// When payment is due.
    DueDate,
    /// The currency of the amounts.
    Currency,
    /// Who issued the document: seller, vendor, merchant.
    Issuer,
    /// Who the document is addressed to: buyer, customer, bill to.
    Buyer,
    /// A tax or VAT identification number.
    TaxId,
    /// A bank account's IBAN.
    Iban,
}

impl Concept {
    /// The concept's name in the language files (`due_date`).
    pub fn key(self) -> &'static str {
        match self {
            Concept::Total => "total",
            Concept::Net => "net",
            Concept::Tax => "tax",
            Concept::DocumentNumber => "document_number",
            Concept::IssueDate => "issue_date",
            Concept::DueDate => "due_date",
            Concept::Currency => "currency",
            Concept::Issuer => "issuer",
            Concept::Buyer => "buyer",
            Concept::TaxId => "tax_id",
            Concept::Iban => "iban",
        }
    }
}

/// Every concept, for what is built from all their labels.
pub(crate) const CONCEPTS: &[Concept] = &[
    Concept::Total,
    Concept::Net,
    Concept::Tax,
    Concept::DocumentNumber,
    Concept::IssueDate,
    Concept::DueDate,
    Concept::Currency,
    Concept::Issuer,
    Concept::Buyer,
    Concept::TaxId,
    Concept::Iban,
];
