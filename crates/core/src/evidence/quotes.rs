//! Aligning a model's quote (its `_source` of a value) with the page: as
//! it is (case and spacing aside), else the run of words most like it
//! when at least [`MIN_LIKENESS`] alike. The quote only ranks a value's
//! places; the value itself is still matched exactly after
//! normalisation, so a quote never lets `5%` stand for `6%`.

use std::ops::Range;

use sift_locate::pages::SearchPage;

/// How alike a run of words must be to a quote to stand for it: one
/// minus the edit distance over the longer length, case and spacing
/// aside.
pub const MIN_LIKENESS: f64 = 0.8;

/// Where `quote` is on the pages: the page's index and its words.
pub(super) fn align(pages: &[SearchPage], quote: &str) -> Option<(usize, Range<usize>)> {
    let needle = fold(quote);
    if needle.is_empty() {
        return None;
    }
    let mut best: Option<(f64, usize, Range<usize>)> = None;
    for (index, page) in pages.iter().enumerate() {
        let words: Vec<Vec<char>> = page.words.iter().map(|w| fold(&w.text)).collect();
        for start in 0..words.len() {
            let mut run: Vec<char> = Vec::new();
            for (end, word) in words.iter().enumerate().skip(start) {
                run.extend(word);
                if run.len() + 2 < needle.len() / 2 {
                    continue;
                }
                let likeness = likeness(&run, &needle);
                if best.as_ref().is_none_or(|(b, _, _)| likeness > *b) {
                    best = Some((likeness, index, start..end + 1));
                }
                if run.len() >= needle.len() * 3 / 2 + 2 || likeness == 1.0 {
                    break;
                }
            }
            if best.as_ref().is_some_and(|(b, _, _)| *b == 1.0) {
                break;
            }
        }
    }
    best.filter(|(l, _, _)| *l >= MIN_LIKENESS)
        .map(|(_, page, words)| (page, words))
}

fn fold(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// One minus the edit distance over the longer length.
fn likeness(a: &[char], b: &[char]) -> f64 {
    let longer = a.len().max(b.len());
    if longer == 0 {
        return 1.0;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    1.0 - previous[b.len()] as f64 / longer as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn likeness_is_one_minus_the_edit_distance_over_the_longer() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(likeness(&c("total"), &c("total")), 1.0);
        assert_eq!(likeness(&c("total"), &c("tota1")), 0.8);
        assert_eq!(likeness(&c(""), &c("ab")), 0.0);
    }
}
