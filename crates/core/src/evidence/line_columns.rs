//! Which properties of a schema's line items hold the description, the
//! quantity, the unit price and the line's amount, read from their names (the schema is the
//! user's, in English or not; a name is split into words, `unitPrice` and
//! `unit_price` alike). The consistency checks add up the amounts; the
//! answer works out a line's missing number from the other two.

use serde_json::Value;
use sift_locate::names::split_name;

/// The number columns of an array of line items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineColumns {
    /// The array's property (`line_items`).
    pub array: String,
    /// The line's amount (`amount`, `line_total`).
    pub amount: String,
    /// How many (`quantity`, `qty`), when the items have it.
    pub quantity: Option<String>,
    /// The price of one (`unit_price`, `price`, `rate`), when they have it.
    pub unit_price: Option<String>,
    /// What was sold (`description`, `item`, `product_name`), when they
    /// have it: where the answer finds the line on the page.
    pub description: Option<String>,
}

/// The first top-level array of objects with an amount column.
pub(crate) fn line_columns(schema: &Value) -> Option<LineColumns> {
    let properties = schema.get("properties")?.as_object()?;
    properties.iter().find_map(|(name, property)| {
        let item_fields = property.get("items")?.get("properties")?.as_object()?;
        let named = |test: fn(&[String]) -> bool| {
            item_fields
                .keys()
                .find(|field| test(&split_name(field)))
                .cloned()
        };
        Some(LineColumns {
            array: name.clone(),
            amount: named(is_amount)?,
            quantity: named(is_quantity),
            unit_price: named(is_unit_price),
            description: named(is_description),
        })
    })
}

fn has(words: &[String], any: &[&str]) -> bool {
    words.iter().any(|w| any.contains(&w.as_str()))
}

/// A line's total, not a price, rate or tax of it.
fn is_amount(words: &[String]) -> bool {
    has(words, &["amount", "total"])
        && !has(words, &["unit", "price", "tax", "vat", "rate", "discount"])
}

fn is_quantity(words: &[String]) -> bool {
    has(words, &["quantity", "qty", "count"])
}

fn is_unit_price(words: &[String]) -> bool {
    has(words, &["price", "rate"]) && !has(words, &["total", "tax", "vat", "discount"])
}

/// What the line sold, in words: not its code, number or unit.
fn is_description(words: &[String]) -> bool {
    has(
        words,
        &[
            "description",
            "desc",
            "name",
            "item",
            "product",
            "article",
            "title",
            "text",
            "service",
        ],
    ) && !has(
        words,
        &[
            "code", "number", "no", "id", "sku", "unit", "price", "amount", "total",
        ],
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_columns_are_read_from_the_items_names() {
        let schema = json!({"type": "object", "properties": {
            "number": {"type": "string"},
            "lineItems": {"type": "array", "items": {"type": "object", "properties": {
                "itemCode": {"type": "string"},
                "description": {"type": "string"},
                "qty": {"type": "number"},
                "unitPrice": {"type": "number"},
                "taxRate": {"type": "number"},
                "lineTotal": {"type": "number"}
            }}}
        }});
        assert_eq!(
            line_columns(&schema),
            Some(LineColumns {
                array: "lineItems".into(),
                amount: "lineTotal".into(),
                quantity: Some("qty".into()),
                unit_price: Some("unitPrice".into()),
                description: Some("description".into()),
            })
        );
        let no_amount = json!({"properties": {"tags": {"type": "array", "items": {"properties": {"price": {}}}}}});
        assert_eq!(line_columns(&no_amount), None);
    }
}
