//! Evaluation: extraction results compared with ground truth, field by
//! field.
//!
//! The ground truth is a TSV (like the corpus's `MANIFEST.tsv`): a header
//! with a `file` column and one column per field; a cell wrapped in double
//! quotes is unquoted (`""` is a quote). Fields are the schema's columns as
//! the CSV export names them (`a.b` for nested objects) that have a truth
//! column of the same name. Documents are matched to truth rows by file
//! name (the path's last component).
//!
//! Before comparing, both sides are normalised ([`normalize`], in `normalise`): a date (ISO,
//! `dd/mm/yyyy`, `dd.mm.yyyy`, `dd-mm-yyyy`, `d Month yyyy`, `Month d,
//! yyyy`, …) becomes `yyyy-mm-dd`; an amount (`1.021,91`, `1,021.91`,
//! `€ 12.50`, `12.5 USD`) becomes a number, compared numerically; anything
//! else is compared without case and without whitespace. An empty truth
//! cell is not scored; a document whose call failed is wrong on every
//! scored field.
//!
//! Each comparison also carries the evidence status of its value (was it
//! found in the document, and how: [`crate::evidence`]), and the report
//! splits the accuracy by it, to tell whether `not_found` values are the
//! wrong ones.

//!
//! ```text
//! truth      parse_truth(tsv) -> Truth, scored_fields(columns, &truth)
//! normalise  normalize(value), normalize_date, normalize_amount, matches(truth, value)
//! run        run_document(store, request) -> EvalDocument (values and evidence)
//! score      score(fields, &truth, documents) -> EvalReport
//! report     format_table(&report), report_json(&report)
//! compare    compare(fields, &truth, runs) -> Matrix (candidates side by side,
//!            McNemar's test per pair); matrix    format_matrix, matrix_json
//! sets       labelled sets stored: import_set (TSV), set_from_job (checked and
//!            corrected values), export_set, list_sets, get_set
//! candidates Candidate (the app's), CandidateSpec (resolved), fingerprint
//! evaluation start_evaluation, resume_evaluation, cancel_evaluation: each
//!            candidate an extraction job, reused by fingerprint
//! view       run_view (matrix, cost, pairs in words, disagreements), run_history
//! ```

mod candidates;
mod compare;
mod evaluation;
mod matrix;
mod report;
mod run;
mod score;
mod sets;
mod truth;
mod view;

pub use candidates::{Candidate, CandidateSpec, ResolvedCandidate, distinct_labels, fingerprint};
pub use compare::{
    CandidateRun, CandidateScores, Matrix, NOISE_LEVEL, PairDifference, RunFigures, compare,
    mcnemar_exact, percentile,
};
pub use evaluation::{
    EVAL_KIND, EvaluateEvent, EvaluateRequest, cancel_evaluation, evaluation_history,
    evaluation_view, resume_evaluation, start_evaluation, start_evaluation_of,
};
pub use matrix::{format_matrix, matrix_json};
pub use report::{format_table, report_json};
pub use run::{run_document, run_documents};
pub use score::{CallFigures, Comparison, EvalDocument, EvalReport, FieldScore, Sources, score};
pub use sets::{
    LabelledDocumentView, LabelledSetSummary, LabelledSetView, delete_set, export_set, get_set,
    import_set, list_sets, set_from_job, set_tsv,
};
pub use sift_locate::normalise::{
    Normalized, matches, normalize, normalize_amount, normalize_date,
};
pub use truth::{Truth, parse_truth, scored_fields};
pub use view::{
    CandidateValue, CandidateView, Disagreement, EvalRunSummary, EvalRunView, PairView, ScoreCell,
    run_history, run_view, stored_matrix,
};
