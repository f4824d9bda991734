//! E-invoices read exactly: the EN 16931 business terms of a CII invoice
//! (Factur-X and ZUGFeRD 2.x, ZUGFeRD 1.0, XRechnung CII) or a UBL one
//! (XRechnung UBL, Peppol BIS), mapped onto the schema's fields by the
//! concept each field holds (the locator's reading of a field's name and
//! description, so a field means the same on the XML as on the pages).
//!
//! The terms it reads, and the concept each one fills:
//!
//! | Term   | EN 16931 name                 | Concept          | CII (below the root)                                              | UBL (below the root)                                  |
//! |--------|-------------------------------|------------------|-------------------------------------------------------------------|-------------------------------------------------------|
//! | BT-1   | Invoice number                | document number  | `ExchangedDocument/ID`                                            | `ID`                                                  |
//! | BT-2   | Invoice issue date            | issue date       | `ExchangedDocument/IssueDateTime/DateTimeString`                  | `IssueDate`                                           |
//! | BT-5   | Invoice currency code         | currency         | `…/ApplicableHeaderTradeSettlement/InvoiceCurrencyCode`           | `DocumentCurrencyCode`                                |
//! | BT-9   | Payment due date              | due date         | `…/SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString`     | `DueDate`, `PaymentMeans/PaymentDueDate`              |
//! | BT-27  | Seller name                   | issuer           | `…/SellerTradeParty/Name`                                         | `AccountingSupplierParty/Party/PartyLegalEntity/RegistrationName`, else `…/PartyName/Name` |
//! | BT-31  | Seller VAT identifier         | tax id           | `…/SellerTradeParty/SpecifiedTaxRegistration/ID` (`schemeID="VA"` first) | `AccountingSupplierParty/Party/PartyTaxScheme/CompanyID` |
//! | BT-44  | Buyer name                    | buyer            | `…/BuyerTradeParty/Name`                                          | `AccountingCustomerParty/Party/PartyLegalEntity/RegistrationName`, else `…/PartyName/Name` |
//! | BT-84  | Payment account identifier    | IBAN             | `…/PayeePartyCreditorFinancialAccount/IBANID`                     | `PaymentMeans/PayeeFinancialAccount/ID`               |
//! | BT-109 | Invoice total without VAT     | net              | `…/SpecifiedTradeSettlementHeaderMonetarySummation/TaxBasisTotalAmount` | `LegalMonetaryTotal/TaxExclusiveAmount`          |
//! | BT-110 | Invoice total VAT amount      | tax              | `…/SpecifiedTradeSettlementHeaderMonetarySummation/TaxTotalAmount` (in BT-5's currency first) | `TaxTotal/TaxAmount` (in BT-5's currency first) |
//! | BT-112 | Invoice total with VAT        | total            | `…/SpecifiedTradeSettlementHeaderMonetarySummation/GrandTotalAmount` | `LegalMonetaryTotal/TaxInclusiveAmount`            |
//!
//! ZUGFeRD 1.0 (root `CrossIndustryDocument`) has the same terms under
//! `HeaderExchangedDocument` and `ApplicableSupplyChainTradeSettlement`.
//!
//! One more term fills no field but signs the amounts: BT-3, the invoice
//! type code (UNTDID 1001; CII `ExchangedDocument/TypeCode`, UBL
//! `InvoiceTypeCode` or `CreditNoteTypeCode`). A credit note states its
//! amounts as positive numbers, the document type saying they are owed to
//! the buyer; an accountant books them negative, and so do the fields
//! here: the net, tax and total (BT-109, BT-110, BT-112) of a credit note
//! come out with their sign turned, never a date, number or quantity. A
//! credit note is a UBL `CreditNote` (whatever its type code), or a
//! document whose type code is 381 (credit note) or 261 (self-billed
//! credit note), in either syntax. A UBL `Invoice` with type code 381 is
//! one too: Peppol BIS rejects that pairing (its UBL credit notes are
//! `CreditNote`s), but EN 16931 gives BT-3 the same meaning in both
//! syntaxes, and the code is what its sender declared. The other credit
//! codes of UNTDID 1001 (81, 83, 262, 296, 308, 396, 420, 458, 532) are
//! outside EN 16931's core and read as invoices. An amount a credit note
//! states as negative (a debit) comes out positive.
//!
//! Why a crate of its own: it reads a document's structured content, not
//! its pages, so it is no part of the locator (which searches pages); but
//! it cannot be a module of `sift-documents` either, which sits below the
//! locator, since it needs the locator's reading of a schema (which field
//! is the total) and a module there would make a circle of the two crates.
//! So it sits beside core, above the locator and the document reader:
//! `sift-documents` gives it the XML (a PDF's attachment, or a dropped
//! `.xml` file), core calls it, and nothing below calls it.
//!
//! Inside: `xml` makes the one pass over the bytes (the texts of the
//! elements at some term, nothing else kept), `terms` holds the table
//! above as paths by syntax and reads a term or the type code from them,
//! and this file types a term's text as the field's value.

mod terms;
#[cfg(test)]
mod tests;
mod xml;

use serde_json::{Value, json};

use sift_documents::{Content, Document, Kind};
use sift_locate::fields::{FieldSpec, ValueKind, field_specs};
use sift_locate::lexicon::Concept;
use sift_locate::normalise::normalize_date;

use terms::term_leaves;

/// Why an XML was not read as an e-invoice. Its message completes a
/// sentence (`… was not read: {message}`), so it starts in lower case.
#[derive(Debug, thiserror::Error)]
pub enum EinvoiceError {
    /// The bytes are not UTF-8 text (after a byte order mark).
    #[error("the XML is not UTF-8 ({0})")]
    NotUtf8(#[from] std::str::Utf8Error),
    /// The XML parser stopped at `at`, a byte offset.
    #[error("the XML is not well formed at byte {at} ({source})")]
    NotWellFormed {
        /// Where the parser stopped.
        at: u64,
        /// What it found there.
        source: quick_xml::Error,
    },
    /// The text ends with elements still open.
    #[error("the XML is not well formed (it ends inside an element)")]
    Unclosed,
    /// There is no element at all: no XML.
    #[error("the XML has no element")]
    NotXml,
    /// Well-formed XML, but its root is neither CII's nor UBL's.
    #[error("the XML is not an EN 16931 invoice (its root element is {root})")]
    UnknownSyntax {
        /// The root element's local name (`Order`, `html`).
        root: String,
    },
}

/// The keys of the schema's fields an e-invoice can give (those whose
/// concept has a business term), whether or not a given XML has them.
pub fn einvoice_field_keys(schema: &Value) -> Vec<String> {
    field_specs(schema)
        .into_iter()
        .filter(|spec| spec.concept.is_some())
        .map(|spec| spec.key())
        .collect()
}

/// What an e-invoice gives a schema's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct EinvoiceFields {
    /// The values, by key (a credit note's amounts negative).
    pub values: Vec<(String, Value)>,
    /// Whether the XML is a credit note (a UBL `CreditNote`, or type code
    /// 381 or 261): its page mostly prints the amounts without the sign,
    /// so evidence looks for their magnitude too. Told with the values,
    /// from the one reading of the XML.
    pub credit_note: bool,
}

/// The values an e-invoice gives the schema's fields; an error says why
/// the XML is not read (not well formed, not an invoice).
pub fn einvoice_fields(xml: &[u8], schema: &Value) -> Result<EinvoiceFields, EinvoiceError> {
    let leaves = term_leaves(xml)?;
    let cii = leaves.cii()?;
    let credit_note = leaves.credit_note(cii);
    let mut values = Vec::new();
    for spec in field_specs(schema) {
        let Some(concept) = spec.concept else {
            continue;
        };
        let Some(text) = leaves.term(concept, cii) else {
            continue;
        };
        let booked = matches!(concept, Concept::Total | Concept::Net | Concept::Tax) && credit_note;
        if let Some(value) = typed(&spec, text, booked) {
            values.push((spec.key(), value));
        }
    }
    Ok(EinvoiceFields {
        values,
        credit_note,
    })
}

/// Where a document's e-invoice XML is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XmlSource<'a> {
    /// A PDF's attachment (Factur-X, ZUGFeRD), by its name.
    Attachment(&'a str),
    /// The document is the `.xml` file itself (XRechnung, UBL).
    File,
}

/// A document's e-invoice XML, if it may have one: a PDF's invoice
/// attachment as its reader found it (`ReadOptions::invoice_xml`), or a
/// `.xml` file's text. Whether it is an invoice is for
/// [`einvoice_fields`] to say.
pub fn einvoice_xml(document: &Document) -> Option<(XmlSource<'_>, &[u8])> {
    match (&document.kind, &document.content) {
        (Kind::Pdf, _) => document
            .invoice_xml
            .as_ref()
            .map(|xml| (XmlSource::Attachment(&xml.name), xml.bytes.as_slice())),
        (Kind::Text, Content::Text(text))
            if document
                .path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xml")) =>
        {
            Some((XmlSource::File, text.as_bytes()))
        }
        _ => None,
    }
}

/// A term's text as the field's value: an amount as a number (or its
/// text, for a string field), with its sign turned when `negated` (a
/// credit note's), a date (`20171116`, format 102) as ISO.
fn typed(spec: &FieldSpec, text: &str, negated: bool) -> Option<Value> {
    match spec.kind {
        ValueKind::Amount => {
            let amount: f64 = text.parse().ok()?;
            // Zero stays `0`, not `-0`.
            let (amount, text) = if negated && amount != 0.0 {
                let text = match text.strip_prefix('-') {
                    Some(positive) => positive.to_owned(),
                    None => format!("-{}", text.strip_prefix('+').unwrap_or(text)),
                };
                (-amount, text)
            } else {
                (amount, text.to_owned())
            };
            Some(if spec.integer {
                json!(amount as i64)
            } else if spec.number {
                json!(amount)
            } else {
                json!(text)
            })
        }
        ValueKind::Date => {
            let digits: String = text.chars().filter(char::is_ascii_digit).collect();
            if digits.len() == 8 && !text.contains('-') {
                Some(json!(format!(
                    "{}-{}-{}",
                    &digits[..4],
                    &digits[4..6],
                    &digits[6..]
                )))
            } else {
                // An `xs:date` may carry its time zone: `2016-04-04+01:00`.
                let date = text.get(..10).filter(|d| {
                    d.bytes().enumerate().all(|(i, b)| {
                        if i == 4 || i == 7 {
                            b == b'-'
                        } else {
                            b.is_ascii_digit()
                        }
                    })
                });
                normalize_date(date.unwrap_or(text)).map(Value::String)
            }
        }
        _ => Some(json!(text)),
    }
}
