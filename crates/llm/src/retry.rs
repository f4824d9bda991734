//! When and how long to wait before sending a failed request again.

use std::time::{Duration, SystemTime};

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; 0 disables retrying.
    pub max_retries: u32,
    /// The wait before the first retry; it doubles for each later one.
    pub base_delay: Duration,
    /// No computed wait exceeds this.
    pub max_delay: Duration,
    /// A server's `Retry-After` is honoured up to this; a longer one fails
    /// the call instead of hanging it.
    pub max_retry_after: Duration,
    /// Randomise each wait within [delay/2, delay] so that many clients
    /// failing together do not retry together.
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
            jitter: true,
        }
    }
}

impl RetryPolicy {
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (0 for the first retry), when the
    /// server gave no `Retry-After`.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(16));
        let delay = self.base_delay.saturating_mul(factor).min(self.max_delay);
        if !self.jitter || delay.is_zero() {
            return delay;
        }
        let half = delay / 2;
        let spread = (delay - half).as_nanos().min(u128::from(u64::MAX)) as u64;
        half + Duration::from_nanos(fastrand::u64(0..=spread))
    }

    /// The wait before retry number `retry`: the server's `Retry-After` when
    /// it sent one, else the backoff. `None` when the server asked for a wait
    /// longer than we accept.
    pub fn delay_for(&self, retry: u32, retry_after: Option<Duration>) -> Option<Duration> {
        match retry_after {
            Some(wait) if wait > self.max_retry_after => None,
            Some(wait) => Some(wait),
            None => Some(self.backoff(retry)),
        }
    }
}

/// Parses a `Retry-After` value: seconds (possibly fractional, as some
/// servers send) or an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps_without_jitter() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(5),
            jitter: false,
        };
        let waits: Vec<_> = (0..5).map(|r| policy.backoff(r).as_millis()).collect();
        assert_eq!(waits, vec![100, 200, 400, 500, 500]);
    }

    #[test]
    fn jitter_stays_within_half_and_full_delay() {
        let policy = RetryPolicy {
            base_delay: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        for _ in 0..200 {
            let wait = policy.backoff(1);
            assert!(
                wait >= Duration::from_millis(1000) && wait <= Duration::from_millis(2000),
                "{wait:?}"
            );
        }
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after("0.5", now),
            Some(Duration::from_millis(500))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(30))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }

    #[test]
    fn retry_after_longer_than_accepted_gives_up() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay_for(0, Some(Duration::from_secs(61))), None);
        assert_eq!(
            policy.delay_for(0, Some(Duration::from_secs(3))),
            Some(Duration::from_secs(3))
        );
    }
}
