//! `sift eval`: one structured call per file, the answers compared with
//! ground truth field by field (see `sift_core::eval`). Several `--model`s
//! are candidates: each reads every file, and the report is the matrix of
//! fields × candidates with each pair's difference (`sift_core::eval::compare`).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::Value;
use sift_core::Workspace;
use sift_core::calls::{CallRequest, canonical_json};
use sift_core::eval::{
    CandidateRun, compare, format_matrix, format_table, matrix_json, parse_truth, report_json,
    run_documents, score, scored_fields,
};
use sift_core::extract::export::schema_columns_from_text;
use sift_core::extract::read_options_for_models;

use crate::Failure;
use crate::model_args::ModelArgs;

pub const DEFAULT_PROMPT: &str = "Extract the fields of the schema from this document.";

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The answers' JSON Schema (a `.json` file).
    #[arg(long, value_name = "FILE", required_unless_present = "set")]
    schema: Option<PathBuf>,
    /// The ground truth: a TSV with a `file` column and one column per
    /// field (named as the schema's property, `a.b` when nested).
    #[arg(long, value_name = "FILE.tsv", required_unless_present = "set")]
    truth: Option<PathBuf>,
    /// A stored labelled set (`sift sets`) instead of files and a truth
    /// TSV: the run is stored, and a candidate that read the set before
    /// with the same settings is not called again.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["schema", "truth", "files"])]
    pub(crate) set: Option<String>,
    /// The candidates, a YAML list of `{label, provider, model, prompt,
    /// schema_version, ocr, answers}` (`provider`: a settings provider
    /// id; left out, the command line's); with `--set` only.
    #[arg(long, value_name = "FILE.yaml", requires = "set")]
    pub(crate) candidates: Option<PathBuf>,
    /// How each `--model` candidate's values are made (`hybrid`,
    /// `grounded`, `free` or `located`); given several times, each mode is a candidate of
    /// each model [default: located for the local model, as measured; free for
    /// other servers]; with `--set` only.
    #[arg(long, value_name = "MODE", requires = "set", conflicts_with = "candidates",
          value_parser = clap::builder::PossibleValuesParser::new(["hybrid", "grounded", "free", "located"]))]
    pub(crate) answers: Vec<String>,
    /// What to ask for each file.
    #[arg(long, default_value = DEFAULT_PROMPT)]
    prompt: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also ask the model for the text each value came from (a
    /// `NAME_source` beside each field, taken out before scoring), to
    /// measure whether it finds and cites values better.
    #[arg(long)]
    sources: bool,
    /// The most documents called at once (the local server answers as
    /// many at once as it has slots).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: u16,
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// The documents (paths or globs).
    #[arg(required_unless_present = "set", value_name = "FILES")]
    files: Vec<String>,
}

fn read(path: &Path, what: &str) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read the {what} {}: {e}", path.display())))
}

/// Exit 0 when it ran, whatever the accuracy; a failed call counts as
/// wrong on every scored field and is reported on stderr.
#[allow(clippy::print_stderr)]
pub async fn run(args: EvalArgs, ws: &Workspace) -> Result<(), Failure> {
    let schema_path = args.schema.clone().unwrap_or_default();
    let truth_path = args.truth.clone().unwrap_or_default();
    let schema_text = read(&schema_path, "schema")?;
    let not_json = |e: serde_json::Error| {
        Failure::Usage(format!(
            "the schema {} is not JSON: {e}",
            schema_path.display()
        ))
    };
    let schema: Value = serde_json::from_str(&schema_text).map_err(not_json)?;
    // The text keeps the properties' order; a parsed `Value` sorts them.
    let columns = schema_columns_from_text(&schema_text).map_err(not_json)?;
    let truth = parse_truth(&read(&truth_path, "truth file")?)?;
    let fields = scored_fields(&columns, &truth);
    if fields.is_empty() {
        return Err(Failure::Usage(format!(
            "no property of the schema has a column in {}",
            truth_path.display()
        )));
    }
    let working_dir = std::env::current_dir().map_err(|e| Failure::Failed {
        category: "other".into(),
        message: format!("no working directory: {e}"),
    })?;
    let files = sift_core::resolve_files(&args.files, &working_dir)?;
    let store = ws.store()?;
    let context = ws.config().context;
    // Each file read as an extraction reads it for these models (one
    // path for every reader: OCR, the workspace's languages, images only
    // for a model that takes them).
    let requests_for =
        async |selection: sift_core::ModelSelection| -> Result<Vec<CallRequest>, Failure> {
            let read_options = read_options_for_models(ws, &selection).await?;
            Ok(files
                .iter()
                .map(|path| {
                    let mut request = CallRequest::new(selection.clone(), args.prompt.clone());
                    request.kind = "eval".into();
                    request.schema = Some(schema.clone());
                    request.context = context.clone();
                    request.files = vec![path.clone()];
                    request.read_options = read_options.clone();
                    request
                })
                .collect())
        };
    let jobs = usize::from(args.jobs);
    let mut out = std::io::stdout().lock();
    if args.model.models.len() > 1 {
        // Candidates, one after another, each over every file.
        let mut runs = Vec::new();
        for model in &args.model.models {
            let mut selection = args.model.selection(ws);
            selection.models = vec![model.clone()];
            let documents =
                run_documents(&store, &requests_for(selection).await?, args.sources, jobs).await;
            for document in &documents {
                if let Some(error) = &document.error {
                    eprintln!("{model}: {}: {error}", document.file);
                }
            }
            runs.push(CandidateRun {
                label: model.clone(),
                documents,
            });
        }
        let matrix = compare(&fields, &truth, &runs);
        for file in &matrix.candidates[0].report.unmatched {
            eprintln!("{file}: no ground truth, not scored");
        }
        if args.json {
            let _ = writeln!(out, "{}", canonical_json(&matrix_json(&matrix)));
        } else {
            let _ = write!(out, "{}", format_matrix(&matrix));
        }
        return Ok(());
    }
    let documents = run_documents(
        &store,
        &requests_for(args.model.selection(ws)).await?,
        args.sources,
        jobs,
    )
    .await;
    for document in &documents {
        if let Some(error) = &document.error {
            eprintln!("{}: {error}", document.file);
        }
    }
    let report = score(&fields, &truth, &documents);
    for file in &report.unmatched {
        eprintln!("{file}: no ground truth, not scored");
    }
    if args.json {
        let _ = writeln!(out, "{}", canonical_json(&report_json(&report)));
    } else {
        let _ = write!(out, "{}", format_table(&report));
    }
    Ok(())
}
