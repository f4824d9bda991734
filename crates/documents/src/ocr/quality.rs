//! Whether a page's invisible text layer (an earlier OCR's) is worth
//! reading, or the page should be OCR'd instead.
//!
//! The layer is kept when it has at least [`MIN_CHARS`] letters and
//! digits, at least 60% of its visible characters are letters or digits,
//! and at least half of its words look like words: letters with a vowel
//! (in any script without vowels, any letters), or numbers, possibly with
//! punctuation around them. A layer of stray symbols, of a few characters
//! on a full page (`pdf.js` on a scanned letter), or of consonant runs
//! such as `rnrn llll xzq` fails, and the page is OCR'd.

/// The fewest letters and digits a usable layer has.
pub const MIN_CHARS: usize = 24;

/// Whether `layer` is text worth giving the model instead of OCR.
pub fn layer_is_usable(layer: &str) -> bool {
    let visible: Vec<char> = layer.chars().filter(|c| !c.is_whitespace()).collect();
    let alphanumeric = visible.iter().filter(|c| c.is_alphanumeric()).count();
    if alphanumeric < MIN_CHARS || alphanumeric * 10 < visible.len() * 6 {
        return false;
    }
    let words: Vec<&str> = layer.split_whitespace().collect();
    let wordlike = words.iter().filter(|w| looks_like_a_word(w)).count();
    wordlike * 2 >= words.len()
}

fn looks_like_a_word(token: &str) -> bool {
    let core = token.trim_matches(|c: char| !c.is_alphanumeric());
    if core.is_empty() {
        return false;
    }
    if core
        .chars()
        .all(|c| c.is_ascii_digit() || ".,/:-".contains(c))
    {
        return true;
    }
    let letters: Vec<char> = core.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return false;
    }
    // Scripts other than Latin, Greek and Cyrillic: any letters will do.
    if letters.iter().any(|c| (*c as u32) > 0x052F) {
        return true;
    }
    letters.iter().any(|c| {
        "aeiouyäöüàáâãåæèéêëìíîïòóôõøùúûýÿαεηιουωаеёиоуыэюя"
            .contains(c.to_lowercase().next().unwrap_or(*c))
    })
}

#[cfg(test)]
mod tests {
    use super::layer_is_usable;

    #[test]
    fn a_real_layer_is_kept_and_garbage_is_not() {
        assert!(layer_is_usable(
            "Invoice number 4711 dated 15.11.2024, total 571.04 EUR"
        ));
        assert!(!layer_is_usable("pdf.js"));
        assert!(!layer_is_usable(""));
        assert!(!layer_is_usable(
            "~~ ## || ^^ %% @@ ** ++ == -- __ ;; :: ,, .. '' \"\" ``"
        ));
        assert!(!layer_is_usable(
            "rnrn llll xzq bcdf ghjk lmnp qrst vwxz rnrn llll"
        ));
    }
}
