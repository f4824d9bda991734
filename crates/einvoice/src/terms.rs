//! The EN 16931 business terms by syntax (the crate's table): where each
//! concept's term is in CII and in UBL, and whether the document is a
//! credit note (BT-3).

use sift_locate::lexicon::Concept;

use crate::EinvoiceError;
use crate::xml::{Leaves, at_pattern, leaves_of};

/// Every concept with a business term, for [`is_term`].
const CONCEPTS: [Concept; 11] = [
    Concept::DocumentNumber,
    Concept::IssueDate,
    Concept::Currency,
    Concept::DueDate,
    Concept::Total,
    Concept::Net,
    Concept::Tax,
    Concept::Issuer,
    Concept::Buyer,
    Concept::TaxId,
    Concept::Iban,
];

/// Where the document's type code (BT-3) is, by syntax (see
/// [`term_paths`]): CII (ZUGFeRD 1.0 too), then UBL.
const TYPE_CODE_PATHS: [&[&str]; 2] = [
    &[
        "/ExchangedDocument/TypeCode",
        "/HeaderExchangedDocument/TypeCode",
    ],
    &["/InvoiceTypeCode", "/CreditNoteTypeCode"],
];

/// The type codes (BT-3) of a credit note: 381 credit note, 261
/// self-billed credit note.
const CREDIT_NOTE_CODES: [&str; 2] = ["381", "261"];

/// Whether an element's path is where some term is (in either syntax):
/// only those elements' texts are kept, so an XML of a million other
/// elements costs no memory for them.
fn is_term(path: &str) -> bool {
    TYPE_CODE_PATHS
        .iter()
        .any(|paths| paths.iter().any(|p| at_pattern(path, p)))
        || [true, false].into_iter().any(|cii| {
            CONCEPTS
                .iter()
                .any(|&concept| term_paths(concept, cii).iter().any(|p| at_pattern(path, p)))
        })
}

/// Where a concept's term is, by syntax: paths below the root, an exact
/// path when it starts with `/`, else the end of one.
fn term_paths(concept: Concept, cii: bool) -> &'static [&'static str] {
    if cii {
        match concept {
            Concept::DocumentNumber => &["/ExchangedDocument/ID", "/HeaderExchangedDocument/ID"],
            Concept::IssueDate => &[
                "/ExchangedDocument/IssueDateTime/DateTimeString",
                "/HeaderExchangedDocument/IssueDateTime/DateTimeString",
            ],
            Concept::Currency => &[
                "ApplicableHeaderTradeSettlement/InvoiceCurrencyCode",
                "ApplicableSupplyChainTradeSettlement/InvoiceCurrencyCode",
            ],
            Concept::DueDate => &["SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString"],
            Concept::Total => &[
                "SpecifiedTradeSettlementHeaderMonetarySummation/GrandTotalAmount",
                "ApplicableSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation/GrandTotalAmount",
            ],
            Concept::Net => &[
                "SpecifiedTradeSettlementHeaderMonetarySummation/TaxBasisTotalAmount",
                "ApplicableSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation/TaxBasisTotalAmount",
            ],
            Concept::Tax => &[
                "SpecifiedTradeSettlementHeaderMonetarySummation/TaxTotalAmount",
                "ApplicableSupplyChainTradeSettlement/SpecifiedTradeSettlementMonetarySummation/TaxTotalAmount",
            ],
            Concept::Issuer => &["SellerTradeParty/Name"],
            Concept::Buyer => &["BuyerTradeParty/Name"],
            Concept::TaxId => &["SellerTradeParty/SpecifiedTaxRegistration/ID"],
            Concept::Iban => &["PayeePartyCreditorFinancialAccount/IBANID"],
        }
    } else {
        match concept {
            Concept::DocumentNumber => &["/ID"],
            Concept::IssueDate => &["/IssueDate"],
            Concept::Currency => &["/DocumentCurrencyCode"],
            Concept::DueDate => &["/DueDate", "/PaymentMeans/PaymentDueDate"],
            Concept::Total => &["/LegalMonetaryTotal/TaxInclusiveAmount"],
            Concept::Net => &["/LegalMonetaryTotal/TaxExclusiveAmount"],
            Concept::Tax => &["/TaxTotal/TaxAmount"],
            Concept::Issuer => &[
                "/AccountingSupplierParty/Party/PartyLegalEntity/RegistrationName",
                "/AccountingSupplierParty/Party/PartyName/Name",
            ],
            Concept::Buyer => &[
                "/AccountingCustomerParty/Party/PartyLegalEntity/RegistrationName",
                "/AccountingCustomerParty/Party/PartyName/Name",
            ],
            Concept::TaxId => &["/AccountingSupplierParty/Party/PartyTaxScheme/CompanyID"],
            Concept::Iban => &["/PaymentMeans/PayeeFinancialAccount/ID"],
        }
    }
}

/// The XML's texts at the terms of either syntax.
pub(crate) fn term_leaves(xml: &[u8]) -> Result<Leaves, EinvoiceError> {
    leaves_of(xml, is_term)
}

impl Leaves {
    /// Whether the XML is CII (else UBL), or why it is neither.
    pub(crate) fn cii(&self) -> Result<bool, EinvoiceError> {
        match self.root.as_str() {
            "CrossIndustryInvoice" | "CrossIndustryDocument" => Ok(true),
            "Invoice" | "CreditNote" => Ok(false),
            other => Err(EinvoiceError::UnknownSyntax {
                root: other.to_owned(),
            }),
        }
    }

    /// Whether the document is a credit note: a UBL `CreditNote`, or a
    /// type code (BT-3) of 381 or 261.
    pub(crate) fn credit_note(&self, cii: bool) -> bool {
        self.root == "CreditNote"
            || TYPE_CODE_PATHS[usize::from(!cii)]
                .iter()
                .flat_map(|pattern| self.at(pattern))
                .next()
                .is_some_and(|(_, code, _)| CREDIT_NOTE_CODES.contains(&code.as_str()))
    }

    /// The concept's term's text, if the XML has it.
    pub(crate) fn term(&self, concept: Concept, cii: bool) -> Option<&str> {
        let currency = (concept == Concept::Tax)
            .then(|| self.term(Concept::Currency, cii))
            .flatten();
        for pattern in term_paths(concept, cii) {
            let mut found: Vec<_> = self.at(pattern).collect();
            // The tax in the invoice's currency (an invoice may state it
            // in a second one too); a VAT id before a local tax number.
            found.sort_by_key(|(_, _, attributes)| {
                let has = |key: &str, value: Option<&str>| {
                    attributes
                        .iter()
                        .any(|(k, v)| k == key && value.is_some_and(|value| v == value))
                };
                !(has("currencyID", currency) || has("schemeID", Some("VA")))
            });
            if let Some((_, text, _)) = found.first() {
                return Some(text);
            }
        }
        None
    }
}
