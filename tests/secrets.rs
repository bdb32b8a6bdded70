//! API keys go through the real OS keychain (GNOME Keyring's Secret Service in CI).

use policypal::secrets::{self, SecretError};

#[test]
fn keys_round_trip_through_the_keychain_and_never_touch_files() {
    let strict = std::env::var("POLICYPAL_TEST_KEYRING").is_ok_and(|v| v == "1");
    let value = "sk-test-0123456789abcdef";
    match secrets::set(secrets::EMBEDDINGS_KEY, value) {
        Ok(()) => {
            assert_eq!(
                secrets::get(secrets::EMBEDDINGS_KEY).unwrap().as_deref(),
                Some(value)
            );
            secrets::delete(secrets::EMBEDDINGS_KEY).unwrap();
            assert_eq!(secrets::get(secrets::EMBEDDINGS_KEY).unwrap(), None);
            secrets::delete(secrets::EMBEDDINGS_KEY).unwrap();
        }
        Err(e) => {
            assert!(!strict, "a keychain was provided but failed: {e}");
            // Without a keychain the error says so and names no key material.
            assert!(matches!(e, SecretError::NoKeychain(_)), "{e:?}");
            assert!(!e.to_string().contains(value));
            assert!(e.to_string().contains("never stores keys in files"));
        }
    }
}
