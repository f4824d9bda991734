//! Tokens spent, read from where each kind of work stores them: the
//! structured calls (extractions, evaluations, `sift call`, schema
//! suggestions…: `kind` says which), the chat replies (the metadata of a
//! turn's last message) and the workflow steps.

use rusqlite::params;

use crate::Store;
use crate::error::Result;

/// Tokens of one day, kind of work and model, summed.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRecord {
    /// `yyyy-mm-dd`, in the caller's time zone.
    pub day: String,
    /// A structured call's kind (`extract`, `eval`, `call`…), `chat`, or
    /// `workflow`.
    pub kind: String,
    /// The provider kind (`local`, `openai`, `anthropic`), when stored.
    pub provider: Option<String>,
    /// The server's host and port.
    pub host: Option<String>,
    pub model: Option<String>,
    /// Calls, replies or steps.
    pub count: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Store {
    /// Usage between `from_ms` (inclusive) and `to_ms` (exclusive), by
    /// day (shifted by `utc_offset_minutes`), kind, provider and model.
    pub fn usage(
        &self,
        from_ms: i64,
        to_ms: i64,
        utc_offset_minutes: i64,
    ) -> Result<Vec<UsageRecord>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "WITH spent (at, kind, provider, host, model, input, output) AS ( \
               SELECT created_at, kind, json_extract(request, '$.provider'), \
                      json_extract(request, '$.host'), json_extract(request, '$.model'), \
                      input_tokens, output_tokens FROM structured_calls \
               UNION ALL \
               SELECT created_at, 'chat', json_extract(metadata, '$.provider'), \
                      json_extract(metadata, '$.host'), json_extract(metadata, '$.model'), \
                      json_extract(metadata, '$.usage.input_tokens'), \
                      json_extract(metadata, '$.usage.output_tokens') \
                 FROM messages WHERE json_extract(metadata, '$.usage') IS NOT NULL \
               UNION ALL \
               SELECT updated_at, 'workflow', provider, host, model, input_tokens, output_tokens \
                 FROM workflow_steps WHERE reused = 0 AND (input_tokens > 0 OR output_tokens > 0) \
             ) \
             SELECT strftime('%Y-%m-%d', at / 1000 + ?3 * 60, 'unixepoch') AS day, kind, provider, \
                    host, model, count(*), sum(input), sum(output) \
               FROM spent WHERE at >= ?1 AND at < ?2 \
              GROUP BY day, kind, provider, host, model \
              ORDER BY day, kind, provider, model",
        )?;
        let rows = stmt
            .query_map(params![from_ms, to_ms, utc_offset_minutes], |row| {
                let tokens = |i: usize| -> rusqlite::Result<u64> {
                    Ok(u64::try_from(row.get::<_, Option<i64>>(i)?.unwrap_or(0)).unwrap_or(0))
                };
                Ok(UsageRecord {
                    day: row.get(0)?,
                    kind: row.get(1)?,
                    provider: row.get(2)?,
                    host: row.get(3)?,
                    model: row.get(4)?,
                    count: tokens(5)?,
                    input_tokens: tokens(6)?,
                    output_tokens: tokens(7)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}
