//! API keys go through the real OS keychain (GNOME Keyring's Secret Service in CI, started by
//! `scripts/with-keyring.sh`). Without a keychain these tests fail, unless
//! `POLICYPAL_NO_KEYCHAIN=1` declares a machine without one, where the error is checked instead.

use std::process::{Command, Stdio};

use policypal::secrets::{self, SecretError};

fn no_keychain_expected() -> bool {
    std::env::var("POLICYPAL_NO_KEYCHAIN").is_ok_and(|v| v == "1")
}

#[test]
fn keys_round_trip_through_the_keychain_and_never_touch_files() {
    let value = "sk-test-0123456789abcdef";
    let endpoint = "https://embeddings.example.org/v1";
    match secrets::set(secrets::EMBEDDINGS_KEY, endpoint, value) {
        Ok(()) => {
            assert!(!no_keychain_expected(), "a keychain answered");
            let stored = secrets::get(secrets::EMBEDDINGS_KEY).unwrap().unwrap();
            assert_eq!(stored.key, value);
            assert_eq!(
                stored.endpoint.as_deref(),
                Some("https://embeddings.example.org")
            );
            secrets::set(secrets::EMBEDDINGS_KEY, endpoint, "sk-test-replaced").unwrap();
            assert_eq!(
                secrets::get(secrets::EMBEDDINGS_KEY).unwrap().unwrap().key,
                "sk-test-replaced"
            );
            secrets::delete(secrets::EMBEDDINGS_KEY).unwrap();
            assert_eq!(secrets::get(secrets::EMBEDDINGS_KEY).unwrap(), None);
            secrets::delete(secrets::EMBEDDINGS_KEY).unwrap();
            // (The same key name in the same test: tests run in parallel, and tests/web.rs and
            // tests/generative.rs use the other two names.)
            a_key_stored_by_an_earlier_build_is_found_and_moved();
        }
        Err(e) => {
            assert!(
                no_keychain_expected(),
                "no keychain answered ({e}); run the tests under scripts/with-keyring.sh, or set POLICYPAL_NO_KEYCHAIN=1 on a machine without one"
            );
            // Without a keychain the error says so and names no key material.
            assert!(matches!(e, SecretError::NoKeychain(_)), "{e:?}");
            assert!(!e.to_string().contains(value));
            assert!(e.to_string().contains("never stores keys in files"));
        }
    }
}

fn a_key_stored_by_an_earlier_build_is_found_and_moved() {
    // Earlier builds stored keys with `secret-tool` under the attributes service + account.
    let legacy = [
        "service",
        secrets::SERVICE,
        "account",
        secrets::EMBEDDINGS_KEY,
    ];
    let mut store = Command::new("secret-tool")
        .args(["store", "--label", "PolicyPal embeddings-api-key"])
        .args(legacy)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    store
        .stdin
        .take()
        .unwrap()
        .write_all(b"ws-legacy-4242")
        .unwrap();
    assert!(store.wait().unwrap().success());
    // Found, and unbound (sent wherever the transport rule allows, as before).
    let found = secrets::get(secrets::EMBEDDINGS_KEY).unwrap().unwrap();
    assert_eq!(
        (found.key.as_str(), found.endpoint),
        ("ws-legacy-4242", None)
    );
    // Moved: the old item is gone, the key stays readable.
    let old = Command::new("secret-tool")
        .arg("lookup")
        .args(legacy)
        .output()
        .unwrap();
    assert!(old.stdout.is_empty(), "{old:?}");
    assert_eq!(
        secrets::get(secrets::EMBEDDINGS_KEY).unwrap().unwrap().key,
        "ws-legacy-4242"
    );
    secrets::delete(secrets::EMBEDDINGS_KEY).unwrap();
    assert_eq!(secrets::get(secrets::EMBEDDINGS_KEY).unwrap(), None);
}
