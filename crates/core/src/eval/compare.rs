//! Candidates side by side on one labelled set: each candidate (a model,
//! with the same schema and prompt) reads every document, and the result
//! is a matrix of fields × candidates, each cell with its count, each
//! candidate's latency, tokens and failures, and, for every pair, whether
//! their difference is beyond chance for the set's size.
//!
//! Whether two candidates differ is McNemar's exact test on the cells
//! both scored: only the cells where one is right and the other wrong
//! count, and under "no difference" either is as likely to be the right
//! one. A difference is called within noise when the two-sided p is 0.05
//! or more; with few cells that differ, nothing is beyond noise.

use std::collections::BTreeMap;

use super::score::{EvalDocument, EvalReport, score};
use super::truth::Truth;

/// The significance below which a difference is called real.
pub const NOISE_LEVEL: f64 = 0.05;

/// One candidate's documents, as [`super::run_documents`] gave them.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateRun {
    /// How the candidate is shown (its model's name).
    pub label: String,
    /// Its result for each document it read, with each call's figures.
    pub documents: Vec<EvalDocument>,
}

/// A candidate's calls over the set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFigures {
    /// Per document, from its stored call's start to its end.
    pub latency_median_ms: Option<i64>,
    /// The 95th percentile (nearest rank) of the same latencies, in milliseconds;
    /// `None` when no document has one.
    pub latency_p95_ms: Option<i64>,
    /// Input tokens summed over the documents' calls.
    pub input_tokens: u64,
    /// Output tokens summed over the documents' calls.
    pub output_tokens: u64,
    /// Failed documents by their error's category (`model`, `network`…).
    pub failures: BTreeMap<String, usize>,
    /// What the tokens cost at the price table's price, when the caller
    /// knows where the model ran (`None`: no price).
    pub cost: Option<f64>,
    /// Where the price behind `cost` came from; `None` when there is no price.
    pub price_source: Option<crate::usage::prices::PriceSource>,
}

/// One candidate's column of the matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateScores {
    /// The candidate's label, as in its [`CandidateRun`].
    pub label: String,
    /// Its accuracy on the set: per field, overall, and cell by cell.
    pub report: EvalReport,
    /// Its calls' latency, tokens, failures and cost.
    pub figures: RunFigures,
}

/// Two candidates' overall accuracy compared on the cells both scored.
#[derive(Debug, Clone, PartialEq)]
pub struct PairDifference {
    /// The label of the candidate that comes first in the candidates' order.
    pub a: String,
    /// The label of the candidate that comes later.
    pub b: String,
    /// Cells `a` got right and `b` wrong.
    pub only_a: usize,
    /// Cells `b` got right and `a` wrong.
    pub only_b: usize,
    /// McNemar's exact two-sided p.
    pub p_value: f64,
    /// True when `p_value` is at least [`NOISE_LEVEL`]: the difference may be
    /// chance.
    pub within_noise: bool,
}

/// Candidates side by side on one set: each one's scores and figures, and
/// every pair compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// The scored fields (`a.b` names), in the order of each report's per-field
    /// scores.
    pub fields: Vec<String>,
    /// One column per candidate, in the runs' order.
    pub candidates: Vec<CandidateScores>,
    /// Every pair, in the candidates' order.
    pub pairs: Vec<PairDifference>,
}

/// Scores each candidate on `fields` and compares every pair.
pub fn compare(fields: &[String], truth: &Truth, runs: &[CandidateRun]) -> Matrix {
    let candidates: Vec<CandidateScores> = runs
        .iter()
        .map(|run| CandidateScores {
            label: run.label.clone(),
            report: score(fields, truth, &run.documents),
            figures: figures(&run.documents),
        })
        .collect();
    let mut pairs = Vec::new();
    for (i, a) in candidates.iter().enumerate() {
        for b in &candidates[i + 1..] {
            pairs.push(difference(a, b));
        }
    }
    Matrix {
        fields: fields.to_vec(),
        candidates,
        pairs,
    }
}

fn figures(documents: &[EvalDocument]) -> RunFigures {
    let mut latencies: Vec<i64> = documents.iter().filter_map(|d| d.call.latency_ms).collect();
    latencies.sort_unstable();
    let mut failures = BTreeMap::new();
    for d in documents.iter().filter(|d| d.values.is_none()) {
        let category = d
            .call
            .error_category
            .clone()
            .unwrap_or_else(|| "other".into());
        *failures.entry(category).or_insert(0) += 1;
    }
    RunFigures {
        latency_median_ms: percentile(&latencies, 50),
        latency_p95_ms: percentile(&latencies, 95),
        input_tokens: documents.iter().map(|d| d.call.input_tokens).sum(),
        output_tokens: documents.iter().map(|d| d.call.output_tokens).sum(),
        failures,
        cost: None,
        price_source: None,
    }
}

/// The nearest-rank percentile of sorted values: the smallest value with
/// at least `p`% of them at or below it.
pub fn percentile(sorted: &[i64], p: usize) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

fn difference(a: &CandidateScores, b: &CandidateScores) -> PairDifference {
    let key = |c: &super::score::Comparison| (c.file.clone(), c.field.clone());
    let b_cells: BTreeMap<_, bool> = b
        .report
        .comparisons
        .iter()
        .map(|c| (key(c), c.correct))
        .collect();
    let (mut only_a, mut only_b) = (0, 0);
    for cell in &a.report.comparisons {
        match (cell.correct, b_cells.get(&key(cell))) {
            (true, Some(false)) => only_a += 1,
            (false, Some(true)) => only_b += 1,
            _ => {}
        }
    }
    let p_value = mcnemar_exact(only_a, only_b);
    PairDifference {
        a: a.label.clone(),
        b: b.label.clone(),
        only_a,
        only_b,
        p_value,
        within_noise: p_value >= NOISE_LEVEL,
    }
}

/// McNemar's exact two-sided p for `b` and `c` discordant cells: twice
/// the binomial(b + c, ½) tail at the smaller count, at most 1.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // Σ_{i≤k} C(n, i), then ÷ 2^n. The binomial coefficients pass 2^1024
    // beyond about a thousand cells, and 2^-n underflows there too, so the
    // sum is kept below 2^600 by taking out powers of two, which is exact
    // in floating point: small runs give the same bits as the plain sum.
    const STEP: i32 = 600;
    let scale_down = 2f64.powi(-STEP);
    let (mut term, mut tail, mut taken_out) = (1.0f64, 1.0f64, 0i64);
    for i in 0..k {
        term *= (n - i) as f64 / (i + 1) as f64;
        tail += term;
        if tail > 2f64.powi(STEP) {
            term *= scale_down;
            tail *= scale_down;
            taken_out += i64::from(STEP);
        }
    }
    let mut exponent = taken_out - n as i64;
    while exponent < -1000 && tail > 0.0 {
        tail *= 2f64.powi(-1000);
        exponent += 1000;
    }
    let tail = tail * 2f64.powi(exponent as i32);
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_the_binomial_tails() {
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // 2 cells differ, both one way: 2 × ¼.
        assert_eq!(mcnemar_exact(0, 2), 0.5);
        // 0 of 6: 2 × 1/64.
        assert_eq!(mcnemar_exact(6, 0), 0.03125);
        // 1 of 9: 2 × (1 + 9) / 512.
        assert_eq!(mcnemar_exact(1, 8), 0.0390625);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
    }

    #[test]
    fn mcnemar_holds_for_thousands_of_discordant_cells() {
        // Two equal candidates over 5,000 discordant cells do not differ
        // (2^-5000 alone is 0 in floating point).
        assert_eq!(mcnemar_exact(2500, 2500), 1.0);
        assert_eq!(mcnemar_exact(600, 600), 1.0);
        // Against the exact rational tails (Python's fractions).
        let close = |got: f64, want: f64| (got - want).abs() <= want * 1e-9;
        let p = mcnemar_exact(2450, 2550);
        assert!(close(p, 0.161_485_222_397_376_9), "{p}");
        let p = mcnemar_exact(2600, 2400);
        assert!(close(p, 0.004_883_649_737_517_518), "{p}");
        assert_eq!(mcnemar_exact(100, 1900), 0.0);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v = [10, 20, 30, 40];
        assert_eq!(percentile(&v, 50), Some(20));
        assert_eq!(percentile(&v, 95), Some(40));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }
}
