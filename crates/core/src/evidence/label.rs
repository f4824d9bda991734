//! Ranking a value's places by the labels beside them: the place of a
//! total is the one next to "Total", not every other `12.00` on the page.

use std::collections::HashMap;

use sift_locate::pages::{Match, SearchPage};

use super::leaves::Leaf;

/// Whether a word of the page is one of the label words: the same word,
/// the start of it (`Inv`, `Amt.` is not, `Qty` is not), or `No`/`Nr`/`#`
/// for "number".
fn names(page_word: &str, label: &str) -> bool {
    let word: String = page_word
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '#')
        .flat_map(char::to_lowercase)
        .collect();
    if word.is_empty() {
        return false;
    }
    if word == label {
        return true;
    }
    if label == "number" && matches!(word.as_str(), "no" | "nr" | "#" | "num" | "nummer") {
        return true;
    }
    let (short, long) = if word.len() <= label.len() {
        (&word, label)
    } else {
        (&label.to_owned(), word.as_str())
    };
    short.chars().count() >= 3 && long.starts_with(short.as_str())
}

/// Scores each place by the label words before it on its line (2 each)
/// and on the line above (1 each), then orders them: the best labelled
/// first, an exact match before a normalised one, then in document order.
pub(super) fn rank(pages: &[SearchPage], labels: &[String], found: &mut [Match]) {
    // Each line's label words counted once, as running totals, for the
    // lines places are on (and above): counting the words before each
    // place was quadratic on one long line of the value repeated
    // (issue 40).
    let mut counted: HashMap<(usize, usize), Vec<u32>> = HashMap::new();
    let mut labels_before = |page: usize, line: usize, word: Option<usize>| -> u32 {
        let totals = counted.entry((page, line)).or_insert_with(|| {
            let mut totals = vec![0];
            let mut total = 0;
            for word in &pages[page].words[pages[page].lines[line].clone()] {
                total += u32::from(labels.iter().any(|l| names(&word.text, l)));
                totals.push(total);
            }
            totals
        });
        // `None`: the whole line.
        let at = word.map_or(totals.len() - 1, |w| {
            w.saturating_sub(pages[page].lines[line].start)
        });
        totals.get(at).copied().unwrap_or(0)
    };
    for m in found.iter_mut() {
        let line = pages[m.page].words[m.words.start].line;
        let mut score = labels_before(m.page, line, Some(m.words.start)).saturating_mul(2);
        if line > 0 {
            score = score.saturating_add(labels_before(m.page, line - 1, None));
        }
        m.label = score;
    }
    found.sort_by(|a, b| {
        b.label
            .cmp(&a.label)
            .then(b.exact.cmp(&a.exact))
            .then(a.page.cmp(&b.page))
            .then(a.words.start.cmp(&b.words.start))
    });
}

/// For each array item, the line (page and line) where most of its
/// fields have a place, when at least two do: each of its fields' places
/// on that line go first, in their order.
pub(super) fn rank_item_rows(
    pages: &[SearchPage],
    leaves: &[Leaf],
    found: &mut [Option<Vec<Match>>],
) {
    let mut items: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, leaf) in leaves.iter().enumerate() {
        if let Some(end) = leaf.key.rfind(']') {
            items.entry(&leaf.key[..=end]).or_default().push(index);
        }
    }
    let line_of = |m: &Match| (m.page, pages[m.page].words[m.words.start].line);
    for fields in items.values() {
        let mut counts: HashMap<(usize, usize), usize> = HashMap::new();
        for &field in fields {
            let Some(matches) = &found[field] else {
                continue;
            };
            let mut lines: Vec<(usize, usize)> = matches.iter().map(line_of).collect();
            lines.sort_unstable();
            lines.dedup();
            for line in lines {
                *counts.entry(line).or_default() += 1;
            }
        }
        // The most fields; at a tie, the first line in the document.
        let Some((row, _)) = counts
            .into_iter()
            .filter(|(_, n)| *n >= 2)
            .max_by(|(a, n), (b, m)| n.cmp(m).then(b.cmp(a)))
        else {
            continue;
        };
        for &field in fields {
            if let Some(matches) = &mut found[field] {
                matches.sort_by_key(|m| line_of(m) != row);
            }
        }
    }
}
