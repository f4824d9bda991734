//! A Portuguese and a Polish invoice, each located by its own labels
//! (`languages/pt.toml`, `languages/pl.toml`): without the language's file
//! the labels are unknown words and these fields are found wrong or not
//! at all.

use serde_json::{Value, json};

use super::{best, text_document};
use crate::locate_fields;

/// The fields an invoice's header and totals hold, as the starter schema
/// names them.
fn invoice_fields() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's own number as printed; not an order, customer or tax number."},
        "invoice_date": {"type": "string", "format": "date", "description": "The date the invoice was issued."},
        "due_date": {"type": ["string", "null"], "format": "date", "description": "The date payment is due."},
        "seller_name": {"type": "string", "description": "The company or person who issued the invoice and is to be paid."},
        "seller_tax_id": {"type": ["string", "null"], "description": "The seller's VAT or tax number."},
        "buyer_name": {"type": ["string", "null"], "description": "The company or person billed."},
        "subtotal": {"type": "number", "description": "The total before tax."},
        "tax": {"type": "number", "description": "The tax amount."},
        "total": {"type": "number", "description": "The total amount due."},
        "currency": {"type": "string", "description": "The currency of the total, as an ISO 4217 code"}
    }})
}

fn located(text: &str) -> Vec<(&'static str, Value)> {
    let located = locate_fields(&text_document(text), &invoice_fields());
    [
        "invoice_number",
        "invoice_date",
        "due_date",
        "seller_name",
        "seller_tax_id",
        "buyer_name",
        "subtotal",
        "tax",
        "total",
        "currency",
    ]
    .into_iter()
    .map(|key| (key, best(&located, key)))
    .collect()
}

#[test]
fn a_portuguese_invoice_is_located_by_its_labels() {
    let text = "\
Fornecedor: Oficina Azul, Lda\n\
NIF: 509876543\n\
Rua das Flores 12, 4000-100 Porto\n\
Cliente: Padaria Central S.A.\n\
Fatura n.º FT2025/218\n\
Data de emissão: 14-02-2025\n\
Data de vencimento: 16-03-2025\n\
Descrição        Qtd      Preço\n\
Reparação de forno   1   400,00\n\
Base tributável 400,00 €\n\
IVA 23% 92,00 €\n\
Total a pagar 492,00 €\n";
    assert_eq!(
        located(text),
        [
            ("invoice_number", json!("FT2025/218")),
            ("invoice_date", json!("2025-02-14")),
            ("due_date", json!("2025-03-16")),
            ("seller_name", json!("Oficina Azul, Lda")),
            ("seller_tax_id", json!("509876543")),
            ("buyer_name", json!("Padaria Central S.A.")),
            ("subtotal", json!(400.0)),
            ("tax", json!(92.0)),
            ("total", json!(492.0)),
            ("currency", json!("EUR")),
        ]
    );
}

#[test]
fn a_polish_invoice_is_located_by_its_labels() {
    let text = "\
Faktura VAT nr FV/2025/03/17\n\
Data wystawienia: 2025-03-10\n\
Termin płatności: 2025-03-24\n\
Sprzedawca: Zielony Ogród Sp. z o.o.\n\
NIP: 5213017288\n\
Nabywca: Biuro Rachunkowe Kowal\n\
Wartość netto 1 250,00 zł\n\
Kwota VAT 287,50 zł\n\
Do zapłaty 1 537,50 zł\n";
    assert_eq!(
        located(text),
        [
            ("invoice_number", json!("FV/2025/03/17")),
            ("invoice_date", json!("2025-03-10")),
            ("due_date", json!("2025-03-24")),
            ("seller_name", json!("Zielony Ogród Sp. z o.o.")),
            ("seller_tax_id", json!("5213017288")),
            ("buyer_name", json!("Biuro Rachunkowe Kowal")),
            ("subtotal", json!(1250.0)),
            ("tax", json!(287.5)),
            ("total", json!(1537.5)),
            ("currency", json!("PLN")),
        ]
    );
}

#[test]
fn a_brazilian_service_invoice_is_located_by_its_labels() {
    let text = "\
Emitente: Estúdio Ponte Alta Ltda\n\
CNPJ: 12345678000195\n\
Tomador: Clínica Vale Verde S.A.\n\
Nota fiscal nº 004512\n\
Emissão: 05/08/2025\n\
Vencimento: 04/09/2025\n\
Valor dos serviços R$ 2.000,00\n\
Valor do ISS R$ 100,00\n\
Valor total R$ 2.100,00\n";
    assert_eq!(
        located(text),
        [
            ("invoice_number", json!("004512")),
            ("invoice_date", json!("2025-08-05")),
            ("due_date", json!("2025-09-04")),
            ("seller_name", json!("Estúdio Ponte Alta Ltda")),
            ("seller_tax_id", json!("12345678000195")),
            ("buyer_name", json!("Clínica Vale Verde S.A.")),
            ("subtotal", json!(2000.0)),
            ("tax", json!(100.0)),
            ("total", json!(2100.0)),
            ("currency", json!("BRL")),
        ]
    );
}
