//! Row ids: a prefix plus 26 characters of lowercase Crockford base32 that
//! encode 48 bits of Unix milliseconds then 80 random bits (the ULID
//! layout). Ids therefore sort by creation time as plain text, and within
//! one process they are strictly increasing even inside one millisecond.

use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const RANDOM_BITS: u32 = 80;

/// The last id value handed out in this process.
static LAST: Mutex<u128> = Mutex::new(0);

/// Milliseconds since the Unix epoch, the unit of every `*_at` column.
/// A clock set before 1970 reads as 0.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A new id with `prefix` (e.g. `"ses_"`), sortable by creation time.
pub fn new_id(prefix: &str) -> String {
    let ms = u128::try_from(now_ms()).unwrap_or(0) & ((1u128 << 48) - 1);
    let random = (u128::from(fastrand::u64(..)) << 16) | u128::from(fastrand::u16(..));
    let candidate = (ms << RANDOM_BITS) | random;
    let value = {
        let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
        let value = if candidate > *last {
            candidate
        } else {
            last.wrapping_add(1)
        };
        *last = value;
        value
    };
    let mut out = String::with_capacity(prefix.len() + 26);
    out.push_str(prefix);
    for i in (0..26).rev() {
        let digit = ((value >> (i * 5)) & 0x1f) as usize;
        out.push(char::from(ALPHABET[digit]));
    }
    out
}

/// Prefix of session ids.
pub const SESSION_PREFIX: &str = "ses_";
/// Prefix of message ids.
pub const MESSAGE_PREFIX: &str = "msg_";
/// Prefix of structured call ids.
pub const CALL_PREFIX: &str = "call_";
/// Prefix of suspended (pending) turn ids.
pub const PENDING_PREFIX: &str = "pnd_";

/// A new structured call id, for an engine that wants to name a call
/// before it is stored (for example in its streamed events).
pub fn new_call_id() -> String {
    new_id(CALL_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_strictly_increasing_and_well_formed() {
        let ids: Vec<String> = (0..10_000).map(|_| new_id("ses_")).collect();
        for pair in ids.windows(2) {
            assert!(pair[0] < pair[1], "{} !< {}", pair[0], pair[1]);
        }
        for id in &ids {
            assert_eq!(id.len(), 4 + 26);
            assert!(id[4..].bytes().all(|b| ALPHABET.contains(&b)), "{id}");
        }
    }

    #[test]
    fn ids_start_with_the_time() {
        let before = now_ms();
        let id = new_id("");
        let mut value: u128 = 0;
        for b in id.bytes() {
            let digit = ALPHABET.iter().position(|&a| a == b).unwrap_or(0);
            value = (value << 5) | digit as u128;
        }
        let ms = i64::try_from(value >> RANDOM_BITS).unwrap_or(-1);
        assert!(
            ms >= before && ms <= now_ms(),
            "{ms} not in [{before}, now]"
        );
    }
}
