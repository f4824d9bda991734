//! API keys kept in the OS keychain (the Secret Service on Linux: GNOME
//! Keyring or KWallet), under the service name `sift` and an account named
//! after the provider (`openai`, `anthropic`) or whatever the user chose.

use sift_llm::ApiKey;

use crate::error::CoreError;

const SERVICE: &str = "sift";

fn entry(account: &str) -> Result<keyring::Entry, CoreError> {
    keyring::Entry::new(SERVICE, account).map_err(|e| keychain_error("open", account, &e))
}

/// Stores `key` for `account`, replacing any earlier one.
pub fn store_key(account: &str, key: &ApiKey) -> Result<(), CoreError> {
    entry(account)?
        .set_password(key.expose())
        .map_err(|e| keychain_error("store", account, &e))
}

/// The key stored for `account`: `None` when there is none, or when this
/// machine has no keychain to ask (a headless server), since keys may
/// still come from the environment there.
pub fn load_key(account: &str) -> Option<ApiKey> {
    let password = entry(account).ok()?.get_password().ok()?;
    let password = password.trim();
    (!password.is_empty()).then(|| ApiKey::new(password))
}

/// Removes the key stored for `account`. Removing a key that is not there
/// succeeds: the outcome the caller wanted holds.
pub fn delete_key(account: &str) -> Result<(), CoreError> {
    match entry(account)?.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(keychain_error("delete", account, &e)),
    }
}

fn keychain_error(action: &str, account: &str, error: &keyring::Error) -> CoreError {
    // keyring's errors describe the keychain, never the secret.
    CoreError::Keychain(format!(
        "cannot {action} the key for {account:?} in the OS keychain: {error}"
    ))
}
