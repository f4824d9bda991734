//! The crate's readings of CII and UBL invoices, credit notes and XML
//! that is not an invoice.

use super::*;

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "invoice_date": {"type": "string", "format": "date"},
        "currency": {"type": "string"},
        "seller_name": {"type": "string"},
        "seller_tax_id": {"type": ["string", "null"]},
        "tax": {"type": ["number", "null"]},
        "total": {"type": "number"},
        "line_items": {"type": "array"}
    }})
}

#[test]
fn a_cii_invoice_gives_its_business_terms() {
    let xml = br#"<?xml version="1.0"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:a" xmlns:ram="urn:b" xmlns:udt="urn:c">
 <rsm:ExchangedDocument><ram:ID>471102</ram:ID>
  <ram:IssueDateTime><udt:DateTimeString format="102">20241115</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
   <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration>
   <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration>
  </ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
<ram:TaxTotalAmount currencyID="GBP">48.00</ram:TaxTotalAmount>
<ram:TaxTotalAmount currencyID="EUR">56.87</ram:TaxTotalAmount>
<ram:GrandTotalAmount>529.87</ram:GrandTotalAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"#;
    assert_eq!(
        einvoice_fields(xml, &schema()).unwrap().values,
        vec![
            ("invoice_number".to_owned(), json!("471102")),
            ("invoice_date".to_owned(), json!("2024-11-15")),
            ("currency".to_owned(), json!("EUR")),
            ("seller_name".to_owned(), json!("Lieferant GmbH")),
            ("seller_tax_id".to_owned(), json!("DE123456789")),
            ("tax".to_owned(), json!(56.87)),
            ("total".to_owned(), json!(529.87)),
        ]
    );
}

#[test]
fn a_ubl_invoice_gives_its_business_terms() {
    let xml = br#"<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
 xmlns:cac="urn:cac" xmlns:cbc="urn:cbc">
 <cbc:ID>INV-7</cbc:ID><cbc:IssueDate>2024-02-01+01:00</cbc:IssueDate>
 <cbc:DocumentCurrencyCode>NOK</cbc:DocumentCurrencyCode>
 <cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Leverandor AS</cbc:Name></cac:PartyName></cac:Party></cac:AccountingSupplierParty>
 <cac:TaxTotal><cbc:TaxAmount currencyID="NOK">250.00</cbc:TaxAmount></cac:TaxTotal>
 <cac:LegalMonetaryTotal><cbc:TaxInclusiveAmount currencyID="NOK">1250.00</cbc:TaxInclusiveAmount></cac:LegalMonetaryTotal>
</Invoice>"#;
    let values = einvoice_fields(xml, &schema()).unwrap().values;
    assert_eq!(
        values,
        vec![
            ("invoice_number".to_owned(), json!("INV-7")),
            ("invoice_date".to_owned(), json!("2024-02-01")),
            ("currency".to_owned(), json!("NOK")),
            ("seller_name".to_owned(), json!("Leverandor AS")),
            ("tax".to_owned(), json!(250.0)),
            ("total".to_owned(), json!(1250.0)),
        ]
    );
}

/// The fields an e-invoice can give are those whose name says a
/// business term, as the locator reads it: the buyer "billed" is the
/// buyer, not the bill's number.
#[test]
fn the_fields_an_einvoice_can_give_are_named_by_their_concept() {
    let schema = json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "buyer_name": {"type": ["string", "null"],
                       "description": "The company or person billed (\"Bill to\"); null when absent."},
        "notes": {"type": "string"}
    }});
    assert_eq!(
        einvoice_field_keys(&schema),
        ["invoice_number".to_owned(), "buyer_name".to_owned()]
    );
}

fn amounts_schema() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "invoice_date": {"type": "string", "format": "date"},
        "subtotal": {"type": "number", "description": "The amount before tax"},
        "tax": {"type": ["number", "null"]},
        "total": {"type": "number"},
        "total_text": {"type": "string", "description": "The total amount due, as printed"}
    }})
}

/// A CII document of type `code` with these net, tax and total.
fn cii(code: &str, net: &str, tax: &str, total: &str) -> String {
    format!(
        r#"<rsm:CrossIndustryInvoice xmlns:rsm="urn:a" xmlns:ram="urn:b" xmlns:udt="urn:c">
 <rsm:ExchangedDocument><ram:ID>GS-2024-7</ram:ID><ram:TypeCode>{code}</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20241115</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:IncludedSupplyChainTradeLineItem><ram:SpecifiedLineTradeAgreement>
   <ram:NetPriceProductTradePrice><ram:ChargeAmount>10.00</ram:ChargeAmount></ram:NetPriceProductTradePrice>
  </ram:SpecifiedLineTradeAgreement></ram:IncludedSupplyChainTradeLineItem>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode></ram:ApplicableTradeTax>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
<ram:TaxBasisTotalAmount>{net}</ram:TaxBasisTotalAmount>
<ram:TaxTotalAmount currencyID="EUR">{tax}</ram:TaxTotalAmount>
<ram:GrandTotalAmount>{total}</ram:GrandTotalAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"#
    )
}

/// A UBL document of root `root` and type `code` (`InvoiceTypeCode`
/// or `CreditNoteTypeCode`, by the root).
fn ubl(root: &str, code: Option<&str>) -> String {
    let code = code
        .map(|c| format!("<cbc:{root}TypeCode>{c}</cbc:{root}TypeCode>"))
        .unwrap_or_default();
    format!(
        r#"<{root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2" xmlns:cac="urn:cac" xmlns:cbc="urn:cbc">
 <cbc:ID>CN-7</cbc:ID><cbc:IssueDate>2024-02-01</cbc:IssueDate>{code}
 <cbc:DocumentCurrencyCode>NOK</cbc:DocumentCurrencyCode>
 <cac:TaxTotal><cbc:TaxAmount currencyID="NOK">250.00</cbc:TaxAmount></cac:TaxTotal>
 <cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="NOK">1000.00</cbc:TaxExclusiveAmount>
  <cbc:TaxInclusiveAmount currencyID="NOK">1250.00</cbc:TaxInclusiveAmount></cac:LegalMonetaryTotal>
 <cac:{root}Line><cbc:ID>1</cbc:ID><cbc:{quantity} unitCode="C62">4</cbc:{quantity}>
  <cbc:LineExtensionAmount currencyID="NOK">1000.00</cbc:LineExtensionAmount></cac:{root}Line>
</{root}>"#,
        quantity = if root == "CreditNote" {
            "CreditedQuantity"
        } else {
            "InvoicedQuantity"
        }
    )
}

fn amounts(values: &[(String, Value)]) -> Vec<(&str, &Value)> {
    values
        .iter()
        .filter(|(key, _)| ["subtotal", "tax", "total", "total_text"].contains(&key.as_str()))
        .map(|(key, value)| (key.as_str(), value))
        .collect()
}

#[test]
fn a_cii_credit_note_gives_its_amounts_negative_and_nothing_else_changed() {
    let invoice = einvoice_fields(
        cii("380", "100.00", "19.00", "119.00").as_bytes(),
        &amounts_schema(),
    )
    .unwrap()
    .values;
    for code in ["381", "261"] {
        let credit = einvoice_fields(
            cii(code, "100.00", "19.00", "119.00").as_bytes(),
            &amounts_schema(),
        )
        .unwrap()
        .values;
        assert_eq!(
            credit,
            vec![
                ("invoice_number".to_owned(), json!("GS-2024-7")),
                ("invoice_date".to_owned(), json!("2024-11-15")),
                ("subtotal".to_owned(), json!(-100.0)),
                ("tax".to_owned(), json!(-19.0)),
                ("total".to_owned(), json!(-119.0)),
                ("total_text".to_owned(), json!("-119.00")),
            ],
            "{code}"
        );
        // The invoice of the same figures: the same, but positive.
        assert_eq!(invoice.len(), credit.len());
        for ((key, a), (_, b)) in invoice.iter().zip(&credit) {
            if ["subtotal", "tax", "total"].contains(&key.as_str()) {
                assert_eq!(a.as_f64().unwrap(), -b.as_f64().unwrap(), "{key}");
            } else if key != "total_text" {
                assert_eq!(a, b, "{key}");
            }
        }
    }
    // A credit note's negative amount is a debit: booked positive; a
    // zero tax stays zero.
    let values = einvoice_fields(
        cii("381", "-100.00", "0.00", "-100.00").as_bytes(),
        &amounts_schema(),
    )
    .unwrap()
    .values;
    assert_eq!(
        amounts(&values),
        [
            ("subtotal", &json!(100.0)),
            ("tax", &json!(0.0)),
            ("total", &json!(100.0)),
            ("total_text", &json!("100.00"))
        ]
    );
}

#[test]
fn a_credit_note_is_told_by_its_root_or_type_code() {
    for (xml, credit) in [
        (cii("381", "1", "0", "1"), true),
        (cii("261", "1", "0", "1"), true),
        (cii("380", "-1", "0", "-1"), false),
        (cii("384", "1", "0", "1"), false),
        (ubl("CreditNote", None), true),
        (ubl("Invoice", Some("381")), true),
        (ubl("Invoice", Some("380")), false),
    ] {
        assert_eq!(
            einvoice_fields(xml.as_bytes(), &amounts_schema())
                .unwrap()
                .credit_note,
            credit,
            "{xml}"
        );
    }
    assert!(matches!(
        einvoice_fields(b"<Order><ID>1</ID></Order>", &amounts_schema()),
        Err(EinvoiceError::UnknownSyntax { .. })
    ));
}

#[test]
fn a_ubl_credit_note_gives_its_amounts_negative() {
    let negative = [
        ("subtotal", &json!(-1000.0)),
        ("tax", &json!(-250.0)),
        ("total", &json!(-1250.0)),
        ("total_text", &json!("-1250.00")),
    ];
    let positive = [
        ("subtotal", &json!(1000.0)),
        ("tax", &json!(250.0)),
        ("total", &json!(1250.0)),
        ("total_text", &json!("1250.00")),
    ];
    for (root, code, expected) in [
        // A CreditNote is one whatever its code says, or without one.
        ("CreditNote", Some("381"), &negative),
        ("CreditNote", None, &negative),
        // BT-3 means the same in UBL's Invoice as in CII.
        ("Invoice", Some("381"), &negative),
        ("Invoice", Some("261"), &negative),
        ("Invoice", Some("380"), &positive),
        ("Invoice", None, &positive),
    ] {
        let values = einvoice_fields(ubl(root, code).as_bytes(), &amounts_schema())
            .unwrap()
            .values;
        assert_eq!(amounts(&values), *expected, "{root} {code:?}");
        assert_eq!(values[0], ("invoice_number".to_owned(), json!("CN-7")));
        assert_eq!(values[1], ("invoice_date".to_owned(), json!("2024-02-01")));
    }
}

/// 100,000 nested elements, each with text before its closing tag:
/// joining the open elements at each closing tag took 10^10 steps and
/// as many bytes of paths.
#[test]
fn a_deep_xml_is_read_in_linear_time() {
    let depth = 100_000;
    let mut xml = String::from("<Invoice>");
    xml.push_str(&"<a>".repeat(depth));
    xml.push_str(&"x</a>".repeat(depth));
    xml.push_str("<ID>INV-9</ID></Invoice>");
    assert_eq!(
        einvoice_fields(xml.as_bytes(), &schema()).unwrap().values,
        vec![("invoice_number".to_owned(), json!("INV-9"))]
    );
    // A term under a deep path is still found by its end.
    let mut xml = String::from("<CrossIndustryInvoice>");
    xml.push_str(&"<a>".repeat(depth));
    xml.push_str("<SellerTradeParty><Name>Deep GmbH</Name></SellerTradeParty>");
    xml.push_str(&"</a>".repeat(depth));
    xml.push_str("</CrossIndustryInvoice>");
    assert_eq!(
        einvoice_fields(xml.as_bytes(), &schema()).unwrap().values,
        vec![("seller_name".to_owned(), json!("Deep GmbH"))]
    );
}

#[test]
fn broken_or_foreign_xml_says_why() {
    let error = einvoice_fields(b"<order><id>1</id></order>", &schema()).unwrap_err();
    assert!(matches!(&error, EinvoiceError::UnknownSyntax { root } if root == "order"));
    assert_eq!(
        error.to_string(),
        "the XML is not an EN 16931 invoice (its root element is order)"
    );
    let error = einvoice_fields(b"<Invoice><ID>1</Invoice>", &schema()).unwrap_err();
    assert!(matches!(error, EinvoiceError::NotWellFormed { .. }));
    assert!(
        error
            .to_string()
            .starts_with("the XML is not well formed at byte ")
    );
    assert!(matches!(
        einvoice_fields(b"<Invoice><ID>1</ID>", &schema()),
        Err(EinvoiceError::Unclosed)
    ));
    assert!(matches!(
        einvoice_fields(b"just text", &schema()),
        Err(EinvoiceError::NotXml)
    ));
    assert!(matches!(
        einvoice_fields(b"<Invoice>\xFF</Invoice>", &schema()),
        Err(EinvoiceError::NotUtf8(_))
    ));
}
