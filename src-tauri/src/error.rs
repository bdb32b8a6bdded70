//! The error that crosses IPC: a stable `kind` the UI switches on and a message for people.
//!
//! Owns: the mapping from core errors to [`IpcError`]. Must not: carry secrets, document text
//! or stack traces; messages are the core's user-facing texts.

use policypal::{Error, ErrorKind};
use serde::Serialize;

/// An error as the UI receives it: `{"kind": "not_found", "message": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    /// Stable category (the core's [`ErrorKind`], plus `not_ready` for a library that could
    /// not be opened at start-up).
    pub kind: IpcErrorKind,
    /// Human-readable explanation, safe to show.
    pub message: String,
}

/// Categories of [`IpcError`]; serialised in snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum IpcErrorKind {
    /// An error of the core library.
    Core(ErrorKind),
    /// A fault of the shell itself.
    Shell(ShellErrorKind),
}

/// Errors that only the desktop shell has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellErrorKind {
    /// The library could not be opened when the app started (the message says why).
    NotReady,
}

impl From<Error> for IpcError {
    fn from(e: Error) -> Self {
        Self {
            kind: IpcErrorKind::Core(e.kind()),
            message: e.to_string(),
        }
    }
}

impl From<policypal::store::StoreError> for IpcError {
    fn from(e: policypal::store::StoreError) -> Self {
        Error::from(e).into()
    }
}

impl From<policypal::secrets::SecretError> for IpcError {
    fn from(e: policypal::secrets::SecretError) -> Self {
        Error::from(e).into()
    }
}

impl From<policypal::config::ConfigError> for IpcError {
    fn from(e: policypal::config::ConfigError) -> Self {
        Error::from(e).into()
    }
}

impl IpcError {
    /// The library is not available.
    pub fn not_ready(message: impl Into<String>) -> Self {
        Self {
            kind: IpcErrorKind::Shell(ShellErrorKind::NotReady),
            message: message.into(),
        }
    }

    /// Invalid input from the UI.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::InvalidInput(message.into()).into()
    }
}

/// Result of every command.
pub type IpcResult<T> = Result<T, IpcError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipc_errors_serialise_with_a_flat_snake_case_kind() {
        let e: IpcError = Error::InvalidInput("bad".into()).into();
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["kind"], "invalid_input");
        assert_eq!(v["message"], "bad");
        let v = serde_json::to_value(IpcError::not_ready("no disk")).unwrap();
        assert_eq!(v["kind"], "not_ready");
        let e: IpcError = Error::Busy("thread".into()).into();
        assert_eq!(serde_json::to_value(&e).unwrap()["kind"], "busy");
    }
}
