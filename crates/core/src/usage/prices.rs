//! What tokens cost: the user's price table (stored), defaults for known
//! cloud models, and nothing for a model served on this machine. One
//! rule, used by evaluation and the Usage view.
//!
//! A price is looked up, in order: the user's for this provider and
//! model; the user's for any provider (`*`) and this model; zero for the
//! local server or any server on loopback; a default, when the provider
//! is OpenAI's or Anthropic's own API and the model's name starts with a
//! known model's (the longest match: `gpt-4o-mini-2024-07-18` is
//! `gpt-4o-mini`, not `gpt-4o`); else none ("no price", never a guess).

use serde::{Deserialize, Serialize};
use sift_store::{PriceRow, Store};

use sift_llm::server_host;

use crate::error::CoreError;
use crate::models::provider::{ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ProviderKind};

/// Where a price came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum PriceSource {
    /// The user's price table.
    User,
    /// The published price of a known model on OpenAI's or Anthropic's own API.
    Default,
    /// A model on this machine: free.
    Local,
}

/// A price per million tokens, in US dollars for the defaults (the
/// user's own are in whatever they enter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Price {
    /// A settings provider id, or `*` for any provider.
    pub provider_id: String,
    /// The model the price is for; for a default, the known model whose name the served one
    /// starts with.
    pub model: String,
    /// What a million input (prompt) tokens cost.
    pub input_per_mtok: f64,
    /// What a million output (answer) tokens cost.
    pub output_per_mtok: f64,
    /// Where the price came from.
    pub source: PriceSource,
}

impl Price {
    /// What `input` and `output` tokens cost at this price.
    pub fn cost(&self, input: u64, output: u64) -> f64 {
        (input as f64 * self.input_per_mtok + output as f64 * self.output_per_mtok) / 1_000_000.0
    }
}

/// Published list prices (USD per million input, output tokens) of
/// widely used models, as of 2026; the user's table overrides them.
const DEFAULTS: &[(ProviderKind, &str, f64, f64)] = &[
    (ProviderKind::OpenAi, "gpt-4o-mini", 0.15, 0.60),
    (ProviderKind::OpenAi, "gpt-4o", 2.50, 10.00),
    (ProviderKind::OpenAi, "gpt-4.1-nano", 0.10, 0.40),
    (ProviderKind::OpenAi, "gpt-4.1-mini", 0.40, 1.60),
    (ProviderKind::OpenAi, "gpt-4.1", 2.00, 8.00),
    (ProviderKind::OpenAi, "gpt-5-nano", 0.05, 0.40),
    (ProviderKind::OpenAi, "gpt-5-mini", 0.25, 2.00),
    (ProviderKind::OpenAi, "gpt-5", 1.25, 10.00),
    (ProviderKind::Anthropic, "claude-3-haiku", 0.25, 1.25),
    (ProviderKind::Anthropic, "claude-3-5-haiku", 0.80, 4.00),
    (ProviderKind::Anthropic, "claude-haiku-4", 1.00, 5.00),
    (ProviderKind::Anthropic, "claude-3-5-sonnet", 3.00, 15.00),
    (ProviderKind::Anthropic, "claude-3-7-sonnet", 3.00, 15.00),
    (ProviderKind::Anthropic, "claude-sonnet-4", 3.00, 15.00),
    (ProviderKind::Anthropic, "claude-opus-4", 15.00, 75.00),
];

/// Where a model was served: what the price rule needs of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Served<'a> {
    /// The settings' provider id, when known.
    pub provider_id: Option<&'a str>,
    /// The kind of provider that served it.
    pub kind: ProviderKind,
    /// The server's host and port ([`sift_llm::server_host`]).
    pub host: &'a str,
    /// The model, as the server names it.
    pub model: &'a str,
}

fn on_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    name == "localhost" || name == "::1" || name.starts_with("127.")
}

fn official(kind: ProviderKind, host: &str) -> bool {
    match kind {
        ProviderKind::OpenAi => host == server_host(OPENAI_BASE_URL),
        ProviderKind::Anthropic => host == server_host(ANTHROPIC_BASE_URL),
        ProviderKind::Local => false,
    }
}

/// The price of `served` under the rule above, with the user's `table`.
pub fn price_for(table: &[PriceRow], served: &Served<'_>) -> Option<Price> {
    let user = |provider_id: &str| {
        table
            .iter()
            .find(|p| p.provider_id == provider_id && p.model == served.model)
    };
    if let Some(row) = served.provider_id.and_then(user).or_else(|| user("*")) {
        return Some(Price {
            provider_id: row.provider_id.clone(),
            model: row.model.clone(),
            input_per_mtok: row.input_per_mtok,
            output_per_mtok: row.output_per_mtok,
            source: PriceSource::User,
        });
    }
    let provider_id = served
        .provider_id
        .map_or_else(|| served.kind.to_string(), str::to_owned);
    if served.kind == ProviderKind::Local || on_loopback(served.host) {
        return Some(Price {
            provider_id,
            model: served.model.to_owned(),
            input_per_mtok: 0.0,
            output_per_mtok: 0.0,
            source: PriceSource::Local,
        });
    }
    if !official(served.kind, served.host) {
        return None;
    }
    DEFAULTS
        .iter()
        .filter(|(kind, prefix, ..)| *kind == served.kind && served.model.starts_with(prefix))
        .max_by_key(|(_, prefix, ..)| prefix.len())
        .map(|&(_, prefix, input, output)| Price {
            provider_id,
            model: prefix.to_owned(),
            input_per_mtok: input,
            output_per_mtok: output,
            source: PriceSource::Default,
        })
}

/// The table as the Settings screen shows it: the user's prices, then
/// the defaults they have not replaced.
pub fn price_table(store: &Store) -> Result<Vec<Price>, CoreError> {
    let user = store.prices()?;
    let mut prices: Vec<Price> = user
        .iter()
        .map(|row| Price {
            provider_id: row.provider_id.clone(),
            model: row.model.clone(),
            input_per_mtok: row.input_per_mtok,
            output_per_mtok: row.output_per_mtok,
            source: PriceSource::User,
        })
        .collect();
    for &(kind, model, input, output) in DEFAULTS {
        if !user.iter().any(|p| p.model == model) {
            prices.push(Price {
                provider_id: kind.to_string(),
                model: model.to_owned(),
                input_per_mtok: input,
                output_per_mtok: output,
                source: PriceSource::Default,
            });
        }
    }
    Ok(prices)
}

/// Sets the user's price of a model (`provider_id` `*`: on any
/// provider).
pub fn set_price(
    store: &Store,
    provider_id: &str,
    model: &str,
    input_per_mtok: f64,
    output_per_mtok: f64,
) -> Result<(), CoreError> {
    store.set_price(&PriceRow {
        provider_id: provider_id.trim().to_owned(),
        model: model.trim().to_owned(),
        input_per_mtok,
        output_per_mtok,
    })?;
    Ok(())
}

/// Removes the user's price; false when there was none.
pub fn delete_price(store: &Store, provider_id: &str, model: &str) -> Result<bool, CoreError> {
    Ok(store.delete_price(provider_id, model)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served<'a>(kind: ProviderKind, host: &'a str, model: &'a str) -> Served<'a> {
        Served {
            provider_id: Some("cloud"),
            kind,
            host,
            model,
        }
    }

    #[test]
    fn the_longest_known_prefix_of_an_official_api_prices_a_model() {
        let price = price_for(
            &[],
            &served(
                ProviderKind::OpenAi,
                "api.openai.com",
                "gpt-4o-mini-2024-07-18",
            ),
        )
        .unwrap();
        assert_eq!(
            (
                price.model.as_str(),
                price.input_per_mtok,
                price.output_per_mtok
            ),
            ("gpt-4o-mini", 0.15, 0.60)
        );
        assert_eq!(price.source, PriceSource::Default);
        // 2,000 in and 500 out: 0.0003 + 0.0003.
        assert!((price.cost(2_000, 500) - 0.0006).abs() < 1e-12);
        let sonnet = price_for(
            &[],
            &served(
                ProviderKind::Anthropic,
                "api.anthropic.com",
                "claude-sonnet-4-20250514",
            ),
        )
        .unwrap();
        assert_eq!((sonnet.input_per_mtok, sonnet.output_per_mtok), (3.0, 15.0));
    }

    #[test]
    fn loopback_is_free_another_host_has_no_price_and_the_user_wins() {
        let ollama = price_for(
            &[],
            &served(ProviderKind::OpenAi, "127.0.0.1:11434", "gpt-4o"),
        );
        assert_eq!(
            ollama.map(|p| (p.source, p.cost(1000, 1000))),
            Some((PriceSource::Local, 0.0))
        );
        let local = price_for(&[], &served(ProviderKind::OpenAi, "localhost:8080", "x"));
        assert_eq!(local.unwrap().source, PriceSource::Local);
        assert_eq!(
            price_for(
                &[],
                &served(ProviderKind::OpenAi, "llm.example.com", "gpt-4o")
            ),
            None
        );
        let table = vec![
            PriceRow {
                provider_id: "*".into(),
                model: "gpt-4o".into(),
                input_per_mtok: 1.0,
                output_per_mtok: 2.0,
            },
            PriceRow {
                provider_id: "cloud".into(),
                model: "gpt-4o".into(),
                input_per_mtok: 5.0,
                output_per_mtok: 6.0,
            },
        ];
        let mine = price_for(
            &table,
            &served(ProviderKind::OpenAi, "llm.example.com", "gpt-4o"),
        )
        .unwrap();
        assert_eq!(
            (mine.provider_id.as_str(), mine.input_per_mtok, mine.source),
            ("cloud", 5.0, PriceSource::User)
        );
        let other = Served {
            provider_id: Some("other"),
            ..served(ProviderKind::OpenAi, "api.openai.com", "gpt-4o")
        };
        assert_eq!(price_for(&table, &other).unwrap().input_per_mtok, 1.0);
    }
}
