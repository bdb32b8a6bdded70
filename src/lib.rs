//! PolicyPal core: a local library of regulatory and policy PDFs with cited search.
//!
//! Everything that is not GUI lives here; the `policypal` CLI ([`cli`]) and the desktop shell
//! call the same [`library::Library`] API. Module boundaries:
//! - [`config`]: data directory and settings.
//! - [`store`]: SQLite (profiles, sets, documents, pages, conversations, messages, checkpoints).
//! - [`ingest`]: PDF → pages → chunks.
//! - [`embed`]: text → vectors (local MiniLM or OpenAI-compatible).
//! - [`index`]: LanceDB chunks table and hybrid search.
//! - [`library`]: the coordinating API.
//! - [`agent`]: the checkpointed answering graph.
//! - [`secrets`]: API keys in the OS keychain.
//! - [`redact`]: personal data replaced before anything leaves the machine.
//! - [`web`]: web search (Tavily), a distinct source type.
//! - [`bench`]: throughput and latency measurements.
//! - [`cli`]: the command line (the only module that prints).

pub mod agent;
pub mod bench;
pub mod cli;
pub mod config;
pub mod embed;
pub mod eval;
pub mod index;
pub mod ingest;
pub mod library;
pub mod liveness;
pub mod llm;
pub mod logging;
pub mod models;
pub mod onboarding;
pub mod redact;
pub mod report;
pub mod secrets;
pub mod store;
pub mod web;

use std::path::PathBuf;

use serde::Serialize;

/// The memory allocator both binaries (CLI and desktop) install as the global allocator.
///
/// The encoder allocates and frees tensors of several megabytes for every layer of every
/// batch. glibc's malloc serves those with fresh `mmap`s and hands them back on free, so each
/// one was page-faulted and zeroed again by the kernel: a sixth of the embedding time went to
/// the kernel. mimalloc keeps and reuses the pages (the ingest benchmark's peak RSS did not
/// grow).
pub use mimalloc::MiMalloc as Allocator;

pub use library::{
    Flow, IngestReport, IngestRequest, Library, Progress, SearchRequest, SearchResult, Stage,
};

/// Every error the core API returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Settings or data directory.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// SQLite store.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The PDF cannot be ingested.
    #[error(transparent)]
    Ingest(#[from] ingest::IngestError),
    /// Embedding.
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
    /// LanceDB index.
    #[error(transparent)]
    Index(#[from] index::IndexError),
    /// The OS keychain.
    #[error(transparent)]
    Secret(#[from] secrets::SecretError),
    /// The language model.
    #[error(transparent)]
    Llm(#[from] llm::LlmError),
    /// Web search.
    #[error(transparent)]
    Web(#[from] web::WebError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The same file is already in this profile's library.
    #[error("this file is already in the library as \"{title}\" (document {id})")]
    Duplicate {
        /// The existing document.
        id: String,
        /// Its label.
        title: String,
    },
    /// A different file with the same title and version exists.
    #[error(
        "a document titled \"{title}\" with version \"{version}\" already exists (document {id}); give another --version (a newer version supersedes it) or another --title"
    )]
    TitleVersionExists {
        /// The existing document.
        id: String,
        /// The title.
        title: String,
        /// The version.
        version: String,
    },
    /// A request is malformed.
    #[error("{0}")]
    InvalidInput(String),
    /// The caller cancelled the operation.
    #[error("cancelled")]
    Cancelled,
    /// The same file is being added by a live ingestion (this window, another one or the CLI).
    #[error(
        "\"{file}\" is being added to this profile's library right now{}; wait for it to finish",
        by.as_ref().map(|b| format!(" (by {b})")).unwrap_or_default()
    )]
    IngestInProgress {
        /// The file being added.
        file: String,
        /// Who adds it ("policypal-desktop, process 4242"), when known.
        by: Option<String>,
    },
    /// Work that one process at a time may do on a library (a reindex) is running, or conflicts
    /// with what was asked.
    #[error("{0}")]
    LibraryBusy(String),
    /// Another run is in progress in this thread.
    #[error("a run is already in progress in thread {0}; wait for it or cancel it")]
    Busy(String),
    /// A bug or an unexpected failure.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Stable error categories that front ends switch on (serialised in snake_case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Malformed request or argument.
    InvalidInput,
    /// Profile, document or set does not exist (in this profile).
    NotFound,
    /// Already exists.
    Duplicate,
    /// The PDF cannot be ingested (corrupt, encrypted, scanned, too large…).
    UnsupportedPdf,
    /// The embedding model is not installed.
    ModelMissing,
    /// The index was built by another embedding model.
    ModelMismatch,
    /// A remote service failed.
    Remote,
    /// No OS keychain.
    NoKeychain,
    /// The caller cancelled.
    Cancelled,
    /// Another run holds the thread.
    Busy,
    /// File system problem.
    Io,
    /// Anything else.
    Internal,
}

impl Error {
    /// The stable category of this error.
    pub fn kind(&self) -> ErrorKind {
        use store::StoreError as S;
        match self {
            Error::Store(
                S::ProfileNotFound(_)
                | S::DocumentNotFound(_)
                | S::SetNotFound(_)
                | S::ConversationNotFound(_)
                | S::ReviewNotFound(_),
            ) => ErrorKind::NotFound,
            Error::Store(S::ProfileExists(_) | S::SetExists(_)) => ErrorKind::Duplicate,
            Error::Store(S::InvalidName { .. } | S::InvalidColour(_) | S::ReviewClosed { .. }) => {
                ErrorKind::InvalidInput
            }
            Error::Store(S::Io { .. }) => ErrorKind::Io,
            Error::IngestInProgress { .. } | Error::LibraryBusy(_) => ErrorKind::Busy,
            Error::Store(_) => ErrorKind::Internal,
            Error::Ingest(_) => ErrorKind::UnsupportedPdf,
            Error::Embed(
                embed::EmbedError::ModelMissing { .. } | embed::EmbedError::ModelInvalid { .. },
            ) => ErrorKind::ModelMissing,
            Error::Embed(embed::EmbedError::Remote(_) | embed::EmbedError::BadResponse(_)) => {
                ErrorKind::Remote
            }
            Error::Embed(_) => ErrorKind::Internal,
            Error::Index(index::IndexError::ModelMismatch { .. }) => ErrorKind::ModelMismatch,
            Error::Index(index::IndexError::InvalidId(_)) => ErrorKind::NotFound,
            Error::Index(_) => ErrorKind::Internal,
            Error::Secret(secrets::SecretError::NoKeychain(_)) => ErrorKind::NoKeychain,
            Error::Secret(
                secrets::SecretError::UnknownName(_)
                | secrets::SecretError::InsecureEndpoint(_)
                | secrets::SecretError::BadEndpoint(_),
            ) => ErrorKind::InvalidInput,
            Error::Secret(_) => ErrorKind::Internal,
            Error::Llm(llm::LlmError::LocalLoad { .. }) => ErrorKind::ModelMissing,
            Error::Llm(llm::LlmError::LocalRun { .. }) => ErrorKind::Internal,
            Error::Llm(_) => ErrorKind::Remote,
            Error::Web(web::WebError::Disabled | web::WebError::NoKey) => ErrorKind::InvalidInput,
            Error::Web(_) => ErrorKind::Remote,
            Error::Config(
                config::ConfigError::Invalid { .. } | config::ConfigError::NoKeyEndpoint(_),
            ) => ErrorKind::InvalidInput,
            Error::Config(_) => ErrorKind::Io,
            Error::File { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            Error::File { .. } => ErrorKind::Io,
            Error::Duplicate { .. } | Error::TitleVersionExists { .. } => ErrorKind::Duplicate,
            Error::InvalidInput(_) => ErrorKind::InvalidInput,
            Error::Cancelled => ErrorKind::Cancelled,
            Error::Busy(_) => ErrorKind::Busy,
            Error::Internal(_) => ErrorKind::Internal,
        }
    }

    /// True when the user can fix the problem by changing the input (as opposed to a fault of
    /// PolicyPal or of the machine).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::InvalidInput
                | ErrorKind::NotFound
                | ErrorKind::Duplicate
                | ErrorKind::UnsupportedPdf
                | ErrorKind::Cancelled
                | ErrorKind::Busy
        )
    }
}
