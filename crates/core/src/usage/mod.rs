//! Usage: the Usage view (here) and what tokens cost ([`prices`]).
//!
//! The Usage view: tokens and cost by day, provider, model and kind of
//! work, read from what each kind stores (see `Store::usage`), priced by
//! the one price rule ([`crate::usage::prices`]).

pub mod prices;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sift_llm::server_host;
use sift_store::Store;

use crate::error::CoreError;
use crate::models::provider::{ProviderKind, ProviderSettings};
use crate::usage::prices::{Served, price_for};

/// The period: from `from_ms` (inclusive) to `to_ms` (exclusive), days
/// counted in the caller's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UsageRequest {
    /// The start, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub from_ms: i64,
    /// The end, in milliseconds since the Unix epoch; after `from_ms`.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub to_ms: i64,
    /// Minutes east of UTC (`-new Date().getTimezoneOffset()`).
    #[serde(default)]
    pub utc_offset_minutes: i32,
}

/// Tokens of one day, provider, model and kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UsageRow {
    /// The day, `yyyy-mm-dd` in the caller's time zone.
    pub day: String,
    /// `local`, `openai`, `anthropic`, or `unknown` for work stored
    /// before Sift kept it.
    pub provider: String,
    /// The model as the server named it, or `unknown` when it was not stored.
    pub model: String,
    /// `chat`, `structured call`, `extraction`, `evaluation`, `workflow
    /// step`, `schema suggestion`, or another call's kind as stored.
    pub kind: String,
    /// How many calls, chat replies or workflow steps the row adds up.
    pub count: u32,
    /// The tokens sent to the model (prompt, documents, history).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// The tokens the model wrote.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    /// `null` when the model has no price.
    pub cost: Option<f64>,
}

/// The Usage view of a period: its rows and their totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UsageReport {
    /// One row per day, provider, model and kind, sorted by them in that order.
    pub rows: Vec<UsageRow>,
    /// The calls, replies and steps of every row.
    pub count: u32,
    /// The input tokens of every row.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// The output tokens of every row.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    /// The cost of the rows with a price.
    pub cost: f64,
    /// Rows left out of `cost` for want of a price.
    pub unpriced_rows: u32,
}

/// A stored kind as people name it.
fn kind_name(kind: &str) -> String {
    match kind {
        "chat" => "chat",
        "workflow" => "workflow step",
        "extract" => "extraction",
        "eval" => "evaluation",
        "call" => "structured call",
        "schema_suggestion" => "schema suggestion",
        other => other,
    }
    .to_owned()
}

/// Usage in the period, a row per day, provider, model and kind.
pub fn usage(store: &Store, request: UsageRequest) -> Result<UsageReport, CoreError> {
    if request.to_ms <= request.from_ms {
        return Err(CoreError::Usage("the period ends before it starts".into()));
    }
    let prices = store.prices()?;
    let mut rows: BTreeMap<(String, String, String, String), UsageRow> = BTreeMap::new();
    for record in store.usage(
        request.from_ms,
        request.to_ms,
        i64::from(request.utc_offset_minutes),
    )? {
        let provider = record.provider.clone().unwrap_or_else(|| "unknown".into());
        let model = record.model.clone().unwrap_or_else(|| "unknown".into());
        let kind = kind_name(&record.kind);
        let cost = provider
            .parse::<ProviderKind>()
            .ok()
            .and_then(|kind| {
                // A workflow's model without a base URL is at its kind's.
                let host = record.host.clone().unwrap_or_else(|| {
                    server_host(
                        &ProviderSettings {
                            provider: Some(kind),
                            ..ProviderSettings::default()
                        }
                        .effective_base_url(),
                    )
                });
                price_for(
                    &prices,
                    &Served {
                        provider_id: None,
                        kind,
                        host: &host,
                        model: &model,
                    },
                )
            })
            .map(|p| p.cost(record.input_tokens, record.output_tokens));
        let row = rows
            .entry((
                record.day.clone(),
                provider.clone(),
                model.clone(),
                kind.clone(),
            ))
            .or_insert_with(|| UsageRow {
                day: record.day.clone(),
                provider,
                model,
                kind,
                count: 0,
                input_tokens: 0,
                output_tokens: 0,
                cost: Some(0.0),
            });
        row.count += u32::try_from(record.count).unwrap_or(u32::MAX);
        row.input_tokens += record.input_tokens;
        row.output_tokens += record.output_tokens;
        row.cost = row.cost.zip(cost).map(|(a, b)| a + b);
    }
    let rows: Vec<UsageRow> = rows.into_values().collect();
    Ok(UsageReport {
        count: rows.iter().map(|r| r.count).sum(),
        input_tokens: rows.iter().map(|r| r.input_tokens).sum(),
        output_tokens: rows.iter().map(|r| r.output_tokens).sum(),
        cost: rows.iter().filter_map(|r| r.cost).sum(),
        unpriced_rows: u32::try_from(rows.iter().filter(|r| r.cost.is_none()).count()).unwrap_or(0),
        rows,
    })
}
