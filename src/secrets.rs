//! API keys in the operating system's keychain.
//!
//! Owns: storing, reading and deleting keys by a closed set of names, through the `keyring`
//! crate: the Secret Service (GNOME Keyring, KWallet) on Linux, the login Keychain on macOS,
//! the Credential Manager on Windows. Keys that earlier builds stored with `secret-tool` are
//! moved into the keyring's item when first read. Must not: write a key to a file, a log, a
//! command line or an error message, or fall back to any other storage when no keychain exists
//! (the caller gets [`SecretError::NoKeychain`] and tells the user).

use std::time::Duration;

/// Keychain service name under which every key is stored.
pub const SERVICE: &str = "app.policypal";
/// Key for the embeddings endpoint.
pub const EMBEDDINGS_KEY: &str = "embeddings-api-key";
/// Key for the chat model endpoint.
pub const LLM_KEY: &str = "llm-api-key";
/// Key for web search.
pub const WEB_SEARCH_KEY: &str = "web-search-api-key";

/// Errors of the keychain.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// No keychain service is reachable (for example a bare headless session without a Secret
    /// Service). Keys are never written anywhere else.
    #[error(
        "no OS keychain is available ({0}); start a keyring (e.g. GNOME Keyring) and try again — PolicyPal never stores keys in files"
    )]
    NoKeychain(String),
    /// The keychain refused or failed.
    #[error("keychain error: {0}")]
    Keychain(String),
    /// A stored key would be sent over plain `http://` to another machine.
    #[error(
        "refusing to send the API key to {0}: plain http is only used for servers on this machine; use an https:// URL"
    )]
    InsecureEndpoint(String),
    /// The endpoint to bind a key to is not an http(s) URL.
    #[error("{0:?} is not an http(s) URL to store a key for")]
    BadEndpoint(String),
    /// The name is not one PolicyPal uses.
    #[error("unknown secret name {0:?}")]
    UnknownName(String),
}

const NAMES: [&str; 3] = [EMBEDDINGS_KEY, LLM_KEY, WEB_SEARCH_KEY];

/// Whether a key may travel to `base_url`: over `https://` to any host, over plain `http://`
/// only to this machine (a loopback address or `localhost`), where nobody on the network can
/// read it. Anything that does not parse as such a URL gets no key.
pub fn may_send_key(base_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base_url.trim()) else {
        return false;
    };
    match url.scheme() {
        "https" => true,
        "http" => url.host_str().is_some_and(|h| {
            let h = h.trim_start_matches('[').trim_end_matches(']');
            h.eq_ignore_ascii_case("localhost")
                || h.parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }),
        _ => false,
    }
}

/// `text` (a server's error message) with every occurrence of `key` replaced: a server that
/// echoes the request's headers must not put the key on the screen or in a log.
pub fn scrub(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_owned();
    }
    text.replace(key, "[API key hidden]")
}

/// A key as the keychain holds it: the key and the endpoint it was stored for.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredKey {
    /// The key.
    pub key: String,
    /// Origin (`scheme://host:port`) of the endpoint the key was stored for; `None` for a key
    /// stored before keys were bound (sent wherever the transport rule allows).
    pub endpoint: Option<String>,
}

impl std::fmt::Debug for StoredKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredKey")
            .field("key", &masked(&self.key))
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

/// How a bound key is written in the keychain.
#[derive(serde::Serialize, serde::Deserialize)]
struct Bound {
    endpoint: String,
    key: String,
}

impl StoredKey {
    fn decode(value: String) -> Self {
        match serde_json::from_str::<Bound>(&value) {
            Ok(b) => Self {
                key: b.key,
                endpoint: Some(b.endpoint),
            },
            Err(_) => Self {
                key: value,
                endpoint: None,
            },
        }
    }
}

/// The origin (`scheme://host:port`) of a URL, which a key is bound to; `None` when it is not
/// an http(s) URL.
pub fn origin(url: &str) -> Option<String> {
    let u = reqwest::Url::parse(url.trim()).ok()?;
    matches!(u.scheme(), "http" | "https").then(|| u.origin().ascii_serialization())
}

/// The key stored under `name` for a client to use: `None` when none is stored, and also when
/// the machine has no keychain at all (keys are never kept anywhere else, so none can exist);
/// any other keychain failure (locked, refused) is an error, never taken for "no key".
pub fn stored(name: &str) -> Result<Option<StoredKey>, SecretError> {
    match get(name) {
        Err(SecretError::NoKeychain(_)) => Ok(None),
        other => other,
    }
}

/// The key to configure a client for `base_url` with: the stored key when it was stored for
/// this endpoint and may travel there ([`may_send_key`]); `""` (an explicit empty key, so that
/// no client falls back to an `OPENAI_API_KEY` in the environment) when none is stored or the
/// stored one belongs to another endpoint (the OpenAI key never goes to a local server the
/// settings now point at, which usually needs none); an error naming the endpoint when the key
/// would go over plain `http://` to another machine.
pub fn key_for(base_url: &str, stored: Option<StoredKey>) -> Result<String, SecretError> {
    let Some(k) = stored else {
        return Ok(String::new());
    };
    if let Some(bound) = &k.endpoint
        && origin(base_url).as_ref() != Some(bound)
    {
        tracing::warn!(stored_for = %bound, url = %base_url, "the stored key belongs to another endpoint; none is sent");
        return Ok(String::new());
    }
    if may_send_key(base_url) {
        Ok(k.key)
    } else {
        Err(SecretError::InsecureEndpoint(base_url.to_owned()))
    }
}

/// How long one keychain call may take. With a D-Bus session but no Secret Service behind it,
/// a call waits for a service that never starts; the app must say so instead of hanging.
const KEYCHAIN_BUDGET: Duration = Duration::from_secs(10);

/// The attribute that named the key in items earlier builds wrote through `secret-tool`
/// (besides `service`); the keyring crate searches `username` instead.
#[cfg(target_os = "linux")]
const LEGACY_ACCOUNT: &str = "account";

fn checked(name: &str) -> Result<&str, SecretError> {
    if NAMES.contains(&name) {
        Ok(name)
    } else {
        Err(SecretError::UnknownName(name.to_owned()))
    }
}

/// Runs one keychain call on its own thread and waits at most `budget` for it: a keychain that
/// never answers is reported as missing, not waited for (the call's thread is left to finish
/// on its own).
fn within<T: Send + 'static>(
    budget: Duration,
    call: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(call());
    });
    match rx.recv_timeout(budget) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(SecretError::NoKeychain(format!(
            "the keychain did not answer within {} s: no Secret Service seems to be running",
            budget.as_secs()
        ))),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(SecretError::Keychain(
            "the keychain call ended without a result".into(),
        )),
    }
}

/// A keychain error in our terms: no keychain reachable, or a failure of one that is.
fn failure(e: keyring::Error) -> SecretError {
    let text = e.to_string();
    let s = text.to_lowercase();
    let unreachable = matches!(e, keyring::Error::NoStorageAccess(_))
        || s.contains("d-bus")
        || s.contains("dbus")
        || s.contains("secret service")
        || s.contains("no such interface")
        || s.contains("autolaunch");
    if unreachable {
        SecretError::NoKeychain(text)
    } else {
        SecretError::Keychain(text)
    }
}

fn entry(name: &str) -> Result<keyring::Entry, SecretError> {
    keyring::Entry::new(SERVICE, name).map_err(failure)
}

/// Stores (or replaces) a key in the OS keychain, bound to `endpoint` (the URL it will be sent
/// to; see [`key_for`]).
pub fn set(name: &str, endpoint: &str, value: &str) -> Result<(), SecretError> {
    let name = checked(name)?.to_owned();
    let endpoint = origin(endpoint).ok_or_else(|| SecretError::BadEndpoint(endpoint.to_owned()))?;
    let value = serde_json::to_string(&Bound {
        endpoint,
        key: value.to_owned(),
    })
    .map_err(|e| SecretError::Keychain(e.to_string()))?;
    within(KEYCHAIN_BUDGET, move || {
        entry(&name)?.set_password(&value).map_err(failure)?;
        #[cfg(target_os = "linux")]
        legacy::remove(&name)?;
        Ok(())
    })
}

/// Reads a key from the OS keychain; `None` when it is not stored.
pub fn get(name: &str) -> Result<Option<StoredKey>, SecretError> {
    let name = checked(name)?.to_owned();
    within(KEYCHAIN_BUDGET, move || {
        match entry(&name)?.get_password() {
            Ok(v) => Ok(Some(StoredKey::decode(v))),
            Err(keyring::Error::NoEntry) => {
                #[cfg(target_os = "linux")]
                if let Some(v) = legacy::take(&name)? {
                    entry(&name)?.set_password(&v).map_err(failure)?;
                    legacy::remove(&name)?;
                    return Ok(Some(StoredKey::decode(v)));
                }
                Ok(None)
            }
            Err(e) => Err(failure(e)),
        }
    })
}

/// Removes a key from the OS keychain (nothing to do when it is not stored).
pub fn delete(name: &str) -> Result<(), SecretError> {
    let name = checked(name)?.to_owned();
    within(KEYCHAIN_BUDGET, move || {
        match entry(&name)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => {}
            Err(e) => return Err(failure(e)),
        }
        #[cfg(target_os = "linux")]
        legacy::remove(&name)?;
        Ok(())
    })
}

/// Keys that earlier builds stored through `secret-tool` (attributes `service` and `account`,
/// which the keyring crate does not search for): found by those attributes, moved, removed.
#[cfg(target_os = "linux")]
mod legacy {
    use std::collections::HashMap;

    use dbus_secret_service::{EncryptionType, SecretService};

    use super::{LEGACY_ACCOUNT, SERVICE, SecretError};

    fn items<T>(
        name: &str,
        each: impl Fn(&dbus_secret_service::Item<'_>) -> Result<T, dbus_secret_service::Error>,
    ) -> Result<Vec<T>, SecretError> {
        let err = |e: dbus_secret_service::Error| SecretError::Keychain(e.to_string());
        let ss = SecretService::connect(EncryptionType::Plain)
            .map_err(|e| SecretError::NoKeychain(e.to_string()))?;
        let attributes = HashMap::from([("service", SERVICE), (LEGACY_ACCOUNT, name)]);
        let found = ss.search_items(attributes).map_err(err)?;
        let mut out = Vec::new();
        for item in found.unlocked.iter().chain(found.locked.iter()) {
            item.unlock().map_err(err)?;
            out.push(each(item).map_err(err)?);
        }
        Ok(out)
    }

    /// The legacy item's key, if one exists.
    pub(super) fn take(name: &str) -> Result<Option<String>, SecretError> {
        Ok(items(name, |i| i.get_secret())?
            .into_iter()
            .next()
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// Removes the legacy items of `name`.
    pub(super) fn remove(name: &str) -> Result<(), SecretError> {
        items(name, |i| i.delete()).map(drop)
    }
}

/// A key shown to the user: the last four characters only.
pub fn masked(value: &str) -> String {
    let tail: String = value
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("••••{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_echoed_by_a_server_is_hidden() {
        let said = "401: invalid key 'sk-live-abcdef123456' (Bearer sk-live-abcdef123456)";
        let shown = scrub(said, "sk-live-abcdef123456");
        assert!(!shown.contains("abcdef"), "{shown}");
        assert!(shown.starts_with("401: invalid key '[API key hidden]'"));
        assert_eq!(scrub("no key here", ""), "no key here");
    }

    #[test]
    fn a_key_travels_over_https_or_to_this_machine_only() {
        for ok in [
            "https://api.openai.com/v1",
            "https://models.example.org:8443/v1",
            "http://127.0.0.1:11434/v1",
            "http://127.8.9.10/v1",
            "http://localhost:8080/v1",
            "http://[::1]:8080/v1",
        ] {
            assert!(may_send_key(ok), "{ok}");
        }
        for refused in [
            "http://192.168.1.20:11434/v1",
            "http://models.example.org/v1",
            "http://localhost.example.org/v1",
            "ftp://127.0.0.1/v1",
            "not a url",
        ] {
            assert!(!may_send_key(refused), "{refused}");
        }
        assert_eq!(
            key_for("http://10.0.0.5/v1", None).ok().as_deref(),
            Some("")
        );
        assert!(matches!(
            key_for("http://10.0.0.5/v1", Some(unbound("sk-secret"))),
            Err(SecretError::InsecureEndpoint(u)) if u == "http://10.0.0.5/v1"
        ));
        assert_eq!(
            key_for("https://api.openai.com/v1", Some(unbound("sk-secret")))
                .ok()
                .as_deref(),
            Some("sk-secret")
        );
    }

    fn unbound(key: &str) -> StoredKey {
        StoredKey {
            key: key.into(),
            endpoint: None,
        }
    }

    #[test]
    fn a_key_goes_only_to_the_endpoint_it_was_stored_for() {
        let openai = StoredKey {
            key: "sk-openai".into(),
            endpoint: origin("https://api.openai.com/v1"),
        };
        assert_eq!(openai.endpoint.as_deref(), Some("https://api.openai.com"));
        // Another path on the same origin is the same endpoint.
        assert_eq!(
            key_for("https://api.openai.com/v2/", Some(openai.clone()))
                .ok()
                .as_deref(),
            Some("sk-openai")
        );
        // A local server the settings now point at never gets the OpenAI key, nor does another
        // host or port: they get none.
        for other in [
            "http://127.0.0.1:11434/v1",
            "http://localhost:8080/v1",
            "https://api.openai.com:8443/v1",
            "https://models.example.org/v1",
        ] {
            assert_eq!(
                key_for(other, Some(openai.clone())).ok().as_deref(),
                Some(""),
                "{other}"
            );
        }
        // As the keychain holds them: a bound key, and a plain one from before binding.
        let bound = StoredKey::decode(
            r#"{"endpoint":"http://127.0.0.1:11434","key":"ollama-key"}"#.to_owned(),
        );
        assert_eq!(bound.endpoint.as_deref(), Some("http://127.0.0.1:11434"));
        assert_eq!(bound.key, "ollama-key");
        assert_eq!(StoredKey::decode("sk-plain".into()), unbound("sk-plain"));
        assert!(!format!("{bound:?}").contains("ollama-key"));
        assert_eq!(origin("ftp://x/y"), None);
    }

    #[test]
    fn masking_shows_only_the_last_four_characters() {
        assert_eq!(masked("sk-secret-1234"), "••••1234");
        assert_eq!(masked("ab"), "••••ab");
    }

    #[test]
    fn a_keychain_that_never_answers_is_reported_not_waited_for() {
        use std::time::Instant;
        // Regression: with D-Bus but no Secret Service, a keychain call waits forever.
        let started = Instant::now();
        let err = within(Duration::from_millis(300), || {
            std::thread::sleep(Duration::from_secs(30));
            Ok(())
        })
        .unwrap_err();
        assert!(matches!(err, SecretError::NoKeychain(_)), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(within(Duration::from_secs(5), || Ok(7)).unwrap(), 7);
    }

    #[test]
    fn unknown_names_are_refused_before_the_keychain_is_asked() {
        assert!(matches!(get("ssh-key"), Err(SecretError::UnknownName(_))));
    }
}
