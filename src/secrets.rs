//! API keys in the operating system's keychain.
//!
//! Owns: storing, reading and deleting keys by a closed set of names. On Linux the keys live in
//! the Secret Service (GNOME Keyring, KWallet) through libsecret's `secret-tool`; macOS uses
//! the login Keychain through `security`. Must not: write a key to a file, a log, a command
//! line or an error message, or fall back to any other storage when no keychain exists (the
//! caller gets [`SecretError::NoKeychain`] and tells the user).

use std::io::Write;
use std::process::{Command, Stdio};

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
    /// The name is not one PolicyPal uses.
    #[error("unknown secret name {0:?}")]
    UnknownName(String),
}

const NAMES: [&str; 3] = [EMBEDDINGS_KEY, LLM_KEY, WEB_SEARCH_KEY];

fn checked(name: &str) -> Result<&str, SecretError> {
    if NAMES.contains(&name) {
        Ok(name)
    } else {
        Err(SecretError::UnknownName(name.to_owned()))
    }
}

/// Runs the platform tool; the secret only ever travels on standard input or output.
fn tool(args: &[&str], stdin: Option<&str>) -> Result<(bool, String, String), SecretError> {
    let program = if cfg!(target_os = "macos") {
        "security"
    } else {
        "secret-tool"
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SecretError::NoKeychain(format!("{program} is not available: {e}")))?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(input.as_bytes())
            .map_err(|e| SecretError::Keychain(format!("{program}: {e}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| SecretError::Keychain(format!("{program}: {e}")))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    Ok((out.status.success(), stdout, stderr))
}

fn failure(stderr: String) -> SecretError {
    let s = stderr.to_lowercase();
    if s.contains("d-bus")
        || s.contains("dbus")
        || s.contains("secret service")
        || s.contains("no such interface")
        || s.contains("autolaunch")
    {
        SecretError::NoKeychain(stderr)
    } else {
        SecretError::Keychain(stderr)
    }
}

/// Stores a key.
pub fn set(name: &str, value: &str) -> Result<(), SecretError> {
    let name = checked(name)?;
    let label = format!("PolicyPal {name}");
    let (ok, _, err) = if cfg!(target_os = "macos") {
        // -w with no value makes `security` prompt; the value is given on stdin twice.
        tool(
            &[
                "add-generic-password",
                "-U",
                "-s",
                SERVICE,
                "-a",
                name,
                "-w",
            ],
            Some(&format!("{value}\n{value}\n")),
        )?
    } else {
        tool(
            &[
                "store", "--label", &label, "service", SERVICE, "account", name,
            ],
            Some(value),
        )?
    };
    if ok { Ok(()) } else { Err(failure(err)) }
}

/// Reads a key; `None` when none is stored.
pub fn get(name: &str) -> Result<Option<String>, SecretError> {
    let name = checked(name)?;
    let (ok, out, err) = if cfg!(target_os = "macos") {
        tool(
            &["find-generic-password", "-s", SERVICE, "-a", name, "-w"],
            None,
        )?
    } else {
        tool(&["lookup", "service", SERVICE, "account", name], None)?
    };
    let value = out.trim_end_matches(['\n', '\r']).to_owned();
    match (ok, value.is_empty(), err.is_empty()) {
        (true, false, _) => Ok(Some(value)),
        // Not found: the tools exit non-zero (or print nothing) without an error message.
        (_, true, true) => Ok(None),
        (false, _, false) if err.contains("could not be found") => Ok(None),
        _ => Err(failure(err)),
    }
}

/// Deletes a key (no error when none is stored).
pub fn delete(name: &str) -> Result<(), SecretError> {
    let name = checked(name)?;
    let (ok, _, err) = if cfg!(target_os = "macos") {
        tool(
            &["delete-generic-password", "-s", SERVICE, "-a", name],
            None,
        )?
    } else {
        tool(&["clear", "service", SERVICE, "account", name], None)?
    };
    if ok || err.is_empty() || err.contains("could not be found") {
        Ok(())
    } else {
        Err(failure(err))
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
    fn masking_shows_only_the_last_four_characters() {
        assert_eq!(masked("sk-secret-1234"), "••••1234");
        assert_eq!(masked("ab"), "••••ab");
    }

    #[test]
    fn unknown_names_are_refused_before_the_keychain_is_asked() {
        assert!(matches!(get("ssh-key"), Err(SecretError::UnknownName(_))));
    }
}
