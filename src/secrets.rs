//! API keys in the operating system's keychain.
//!
//! Owns: storing, reading and deleting keys by a closed set of names. On Linux the keys live in
//! the Secret Service (GNOME Keyring, KWallet) through libsecret's `secret-tool`; macOS uses
//! the login Keychain through `security`. Must not: write a key to a file, a log, a command
//! line or an error message, or fall back to any other storage when no keychain exists (the
//! caller gets [`SecretError::NoKeychain`] and tells the user).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

/// The key stored under `name` for a client to use: `None` when none is stored, and also when
/// the machine has no keychain at all (keys are never kept anywhere else, so none can exist);
/// any other keychain failure (locked, refused) is an error, never taken for "no key".
pub fn stored(name: &str) -> Result<Option<String>, SecretError> {
    match get(name) {
        Err(SecretError::NoKeychain(_)) => Ok(None),
        other => other,
    }
}

/// The key to configure a client for `base_url` with: the stored key when it may travel there
/// ([`may_send_key`]), `""` when none is stored (an explicit empty key, so that no client falls
/// back to an `OPENAI_API_KEY` in the environment), and an error naming the endpoint when a
/// stored key would go over plain `http://` to another machine.
pub fn key_for(base_url: &str, stored: Option<String>) -> Result<String, SecretError> {
    match stored {
        None => Ok(String::new()),
        Some(k) if may_send_key(base_url) => Ok(k),
        Some(_) => Err(SecretError::InsecureEndpoint(base_url.to_owned())),
    }
}

/// How long the keychain tool may take. With a D-Bus session but no Secret Service behind it,
/// `secret-tool store` waits forever for a service that never starts; the app must say so
/// instead of hanging.
const TOOL_BUDGET: Duration = Duration::from_secs(10);

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
    finish(program, child, TOOL_BUDGET)
}

/// Waits for the tool at most `budget`, then kills it and reports that no keychain answered.
fn finish(
    program: &str,
    mut child: Child,
    budget: Duration,
) -> Result<(bool, String, String), SecretError> {
    // Readers on their own threads, so a chatty tool cannot block on a full pipe.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < budget => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SecretError::NoKeychain(format!(
                    "{program} did not answer within {} s: no Secret Service seems to be running",
                    budget.as_secs()
                )));
            }
            Err(e) => return Err(SecretError::Keychain(format!("{program}: {e}"))),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default().trim().to_owned();
    Ok((status.success(), stdout, stderr))
}

/// Reads a pipe to its end on a thread of its own.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut out);
        }
        String::from_utf8_lossy(&out).into_owned()
    })
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
            key_for("http://10.0.0.5/v1", Some("sk-secret".into())),
            Err(SecretError::InsecureEndpoint(u)) if u == "http://10.0.0.5/v1"
        ));
        assert_eq!(
            key_for("https://api.openai.com/v1", Some("sk-secret".into()))
                .ok()
                .as_deref(),
            Some("sk-secret")
        );
    }

    #[test]
    fn masking_shows_only_the_last_four_characters() {
        assert_eq!(masked("sk-secret-1234"), "••••1234");
        assert_eq!(masked("ab"), "••••ab");
    }

    #[test]
    fn a_keychain_tool_that_never_answers_is_reported_not_waited_for() {
        // Regression: `secret-tool store` with D-Bus but no Secret Service hangs forever.
        let child = Command::new("sleep")
            .arg("30")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let err = finish("sleep", child, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(err, SecretError::NoKeychain(_)), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let quick = Command::new("echo")
            .arg("ok")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (ok, out, _) = finish("echo", quick, Duration::from_secs(5)).unwrap();
        assert!(ok && out.trim() == "ok");
    }

    #[test]
    fn unknown_names_are_refused_before_the_keychain_is_asked() {
        assert!(matches!(get("ssh-key"), Err(SecretError::UnknownName(_))));
    }
}
