//! A field's name and description as the words that label it
//! (`invoice_number`: `invoice`, `number`), for the locator and for
//! evidence's ranking of places.

/// Words of a description that name nothing in particular.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "this", "that", "with", "from", "its", "are", "was", "has", "have",
    "document", "value", "field", "given", "shown", "any", "all", "one", "each", "which", "when",
    "where", "not", "use", "iso", "format", "yyyy", "mm", "dd", "e.g", "like",
];

/// The words that label a field: its name's (`invoice_number`,
/// `invoiceNumber`: `invoice`, `number`), then its description's.
pub fn label_words(name: &str, description: Option<&str>) -> Vec<String> {
    let mut words = split_name(name);
    if let Some(description) = description {
        for word in description.split(|c: char| !c.is_alphanumeric()) {
            let word = word.to_lowercase();
            if word.chars().count() >= 3 && !STOP_WORDS.contains(&word.as_str()) {
                words.push(word);
            }
        }
    }
    let mut seen = Vec::new();
    words.retain(|w| {
        let new = !seen.contains(w);
        seen.push(w.clone());
        new
    });
    words
}

/// A field's name as its words, lower case (`invoiceNumber`, `invoice_number`:
/// `invoice`, `number`).
pub fn split_name(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        let boundary = !c.is_alphanumeric() || (c.is_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}
